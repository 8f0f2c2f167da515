// What the tests' host processes (cli-host.cjs, service-host.cjs) share: the environment of the work they run, and
// serving connections on their Unix socket until the Jest worker that started them is gone.
const { rmSync } = require('node:fs');
const net = require('node:net');

/** Sets the process's environment to exactly `env`, in place (code that kept a reference to it sees the change). */
function setEnvironment(env) {
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, env);
}

/**
 * Serves `onConnection` on `socketPath` until the process `parentPid` (the Jest worker) is gone, then removes the
 * socket and its log (SOCKET.log, the host's standard error) and ends with `exit(0)`.
 */
function serveUntilParentGone(socketPath, parentPid, onConnection, exit = process.exit.bind(process)) {
  rmSync(socketPath, { force: true });
  const server = net.createServer(onConnection);
  server.listen(socketPath);
  setInterval(() => {
    try {
      process.kill(Number(parentPid), 0);
    } catch {
      server.close();
      rmSync(socketPath, { force: true });
      rmSync(`${socketPath}.log`, { force: true });
      exit(0);
    }
  }, 1000).unref();
}

module.exports = { setEnvironment, serveUntilParentGone };
