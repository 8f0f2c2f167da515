import { DomainError } from '../shared/errors/domain-error';
import { ConfigError, loadConfig } from '../shared/config/app-config';
import { createRootLogger } from '../shared/logging/logger';
import { CliArgs, CliOutput, CliUsageError } from './cli-args';
import { CLI_USAGE, isCliCommand } from './cli-usage';
import { HTTP_CLI_COMMANDS } from './webhooks-cli';

function parseArgs(argv: readonly string[]): CliArgs {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
      if (inline !== undefined) flags[name] = inline;
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags[name] = argv[++i];
      else flags[name] = true;
    } else {
      positional.push(arg);
    }
  }
  return { positional, flags };
}

function usage(): string {
  return [
    'Usage: npm run --silent cli -- <command> [options]   (--help: this list)',
    '',
    '  migrate',
    ...Object.values(CLI_USAGE).map((usage) => `  ${usage}`),
    '',
    'Against a running service, with an API key (--api-key or API_KEY; --api-url or API_URL, default http://127.0.0.1:3000):',
    ...Object.values(HTTP_CLI_COMMANDS).map((c) => `  ${c.usage}`),
  ].join('\n');
}

/** Where a command's output goes: standard output and standard error for the `cli` process. */
export interface CliOutputStreams {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Runs one command (`argv`: the command's name and its arguments) with the settings of `env` and returns its
 * exit code: one JSON object on `out`; an error as JSON on `err` with a non-zero code (2: usage). Log lines of
 * the application, at warn or above unless LOG_LEVEL asks for less, go to `out` as well, as the service's do.
 * The `cli` process (main.ts) hands it its arguments, environment and streams, and exits with the code.
 */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliOutputStreams): Promise<number> {
  try {
    return await run(argv, env, io);
  } catch (e: unknown) {
    if (e instanceof CliUsageError) {
      io.err(`${JSON.stringify({ error: e.message, usage: usage() })}\n`);
      return 2;
    }
    if (e instanceof DomainError) {
      io.err(`${JSON.stringify({ error: e.message, code: e.code, validator: e.fields })}\n`);
      return 1;
    }
    if (e instanceof ConfigError) {
      io.err(`${e.message}\n`);
      return 1;
    }
    io.err(`${JSON.stringify({ error: e instanceof Error ? e.message : String(e) })}\n`);
    return 1;
  }
}

async function run(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliOutputStreams): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out(`${usage()}\n`);
    return 0;
  }
  // These talk to a running service over HTTP: no database is opened for them.
  const httpCommand = name ? HTTP_CLI_COMMANDS[name] : undefined;
  if (httpCommand) return httpCommand.run(parseArgs(rest), (line) => io.out(`${line}\n`), env);
  if (!isCliCommand(name) && name !== 'migrate') {
    io.err(`${name ? `Unknown command "${name}"\n\n` : ''}${usage()}\n`);
    return 2;
  }
  // The application only now: help, usage errors and the HTTP commands above start without it (2.5 s to 0.2 s).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for a database command
  const { createCliContext, resolveDatabase, runMigrations } = require('../bootstrap') as typeof import('../bootstrap.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for a database command
  const { CLI_COMMANDS } = require('./cli-commands') as typeof import('./cli-commands.js');
  const command = isCliCommand(name) ? CLI_COMMANDS[name] : undefined;
  const config = loadConfig(env, 'cli');
  const logger = createRootLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, { write: (line) => io.out(line) });
  const database = await resolveDatabase(config, true);
  const app = await createCliContext(config, database.url, logger);
  try {
    const applied = await runMigrations(app);
    const result = command ? await command.run(parseArgs(rest), app) : { applied };
    // A command that prints for people (doctor) says its own exit code.
    if (result instanceof CliOutput) {
      io.out(`${result.text}\n`);
      return result.code;
    }
    io.out(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    await app.close();
    await database.embedded?.stop();
  }
}
