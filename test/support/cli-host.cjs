// Runs the operator CLI's commands for the tests of one Jest worker (runCli in server.ts), one at a time, in one
// long-lived process instead of one process per command. Each command is the CLI's own `runCli` (src/cli/run-cli.ts,
// the function the `cli` process calls with its arguments, environment and streams): it builds the application
// context from the command's settings, runs, closes the context and gives back its exit code and output. What a
// command process adds around it (loading about 2,000 files, then exiting) is what the tests stop paying for every
// command: about 0.75 s of CPU each. The process itself is still tested by the tests that spawn the CLI
// (test/e2e/foundation/cli.e2e-spec.ts: usage, exit codes, what it loads) and by those that ask for a process.
//
//   node cli-host.cjs SOCKET PARENT_PID
//
// One request per connection on the Unix socket SOCKET: a line of JSON {"args": [...], "env": {...}}; the answer is
// a line of JSON {"code", "stdout", "stderr"}. `env` is the whole environment of the command: the process's
// environment is set to it while the command runs (the modules read their settings from it) and put back after.
// The host ends when the Jest worker that started it (PARENT_PID) is gone.
require('reflect-metadata');
const { join } = require('node:path');
const { serveUntilParentGone, setEnvironment } = require('./host-process.cjs');

const [socketPath, parentPid] = process.argv.slice(2);
const { runCli } = require(join(__dirname, '..', '..', 'dist', 'src', 'cli', 'run-cli.js'));

const own = { ...process.env };
let queue = Promise.resolve();

async function runOne(request) {
  let stdout = '';
  let stderr = '';
  setEnvironment(request.env);
  try {
    const code = await runCli(request.args, process.env, { out: (text) => (stdout += text), err: (text) => (stderr += text) });
    return { code, stdout, stderr };
  } catch (e) {
    return { code: 1, stdout, stderr: `${stderr}cli host: ${e instanceof Error ? e.stack : String(e)}\n` };
  } finally {
    setEnvironment(own);
  }
}

// A command that ended the process would end every later command of the worker: refuse it loudly instead.
const exit = process.exit.bind(process);
process.exit = (code) => {
  throw new Error(`a command called process.exit(${code}) inside the CLI host`);
};

serveUntilParentGone(
  socketPath,
  parentPid,
  (socket) => {
    let input = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      input += chunk;
      const end = input.indexOf('\n');
      if (end < 0) return;
      const request = JSON.parse(input.slice(0, end));
      queue = queue.then(async () => socket.end(`${JSON.stringify(await runOne(request))}\n`));
    });
    socket.on('error', () => undefined);
  },
  exit,
);
