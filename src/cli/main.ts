import 'reflect-metadata';
import { runCli } from './run-cli';

// The operator's command line (`npm run --silent cli -- <command>`): run-cli.ts does the work; this process hands
// it its arguments, environment and streams (standard output and error are synchronous on Linux pipes and files,
// so nothing is lost when it exits right after).
void runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
}).then((code) => process.exit(code));
