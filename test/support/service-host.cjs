// Runs the services a Jest worker's tests start (startServer in server.ts), one at a time, in one long-lived process
// instead of a process each. A service here is the one main.js runs (src/service.ts: checkSettings, openService,
// listen, stop), with the environment the test gave it; what a process of its own adds around it is loading about
// 2,000 files (about 1 s of CPU per start) and its signal handling. Tests that need the process itself (its signals,
// its exit, a cluster, the embedded database, another build) still get one (server.ts decides); a start that finds
// the worker's hosts busy with other services gets one too (server.ts keeps two hosts per worker).
//
//   node service-host.cjs SOCKET PARENT_PID
//
// One connection per service, JSON lines both ways. The test sends {"env": {...}}; the host answers {"pid"} (its
// own: a test that stops the service with SIGKILL kills this process, which is what a killed service is), then
// {"out": text} for every piece of output, {"listening": port} once it listens, and {"exit": code} when it ended:
// refused at start, failed, or stopped after the test sent {"stop": "SIGTERM" | "SIGINT"} (or closed the
// connection). {"busy": true}: another service runs here. While a service runs the process's environment is the
// service's (its modules read settings from it); it is put back after.
require('reflect-metadata');
const { join } = require('node:path');
const { serveUntilParentGone, setEnvironment } = require('./host-process.cjs');

const [socketPath, parentPid] = process.argv.slice(2);
const { checkSettings, openService } = require(join(__dirname, '..', '..', 'dist', 'src', 'service.js'));
const { startupFailure } = require(join(__dirname, '..', '..', 'dist', 'src', 'shared', 'config', 'startup-failure.js'));

const own = { ...process.env };
let busy = false;

async function runService(socket, request, stopAsked) {
  const send = (message) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  };
  const output = { out: (text) => send({ out: text }), err: (text) => send({ out: text }) };
  busy = true;
  setEnvironment(request.env);
  let code;
  try {
    const checked = checkSettings(process.env, output, { buffered: false, first: true });
    if (typeof checked === 'number') code = checked;
    else {
      const { config, logger } = checked;
      const service = await openService(config, logger, { worker: false, first: true }, output, process.hrtime.bigint());
      let port;
      try {
        port = await service.listen();
      } catch (e) {
        await service.stop('failed to listen');
        throw e;
      }
      send({ listening: port });
      const reason = await stopAsked;
      code = await service.stop(reason);
    }
  } catch (e) {
    const failure = startupFailure(e);
    output.err(failure.stderr);
    code = failure.code;
  } finally {
    setEnvironment(own);
    busy = false;
  }
  send({ exit: code });
  socket.end();
}

serveUntilParentGone(socketPath, parentPid, (socket) => {
  let input = '';
  let started = false;
  let askStop;
  const stopAsked = new Promise((resolve) => (askStop = resolve));
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    input += chunk;
    for (let end = input.indexOf('\n'); end >= 0; end = input.indexOf('\n')) {
      const message = JSON.parse(input.slice(0, end));
      input = input.slice(end + 1);
      if (message.stop) askStop(message.stop);
      else if (message.env && !started) {
        started = true;
        if (busy) {
          socket.end(`${JSON.stringify({ busy: true })}\n`);
          return;
        }
        socket.write(`${JSON.stringify({ pid: process.pid })}\n`);
        void runService(socket, message, stopAsked);
      }
    }
  });
  // The test went away without stopping its service (its file ended): stop it, as its process would have been.
  socket.on('close', () => askStop('test gone'));
  socket.on('error', () => undefined);
});
