import 'reflect-metadata';
import { DomainError } from '../shared/errors/domain-error';
import { ConfigError, loadConfig } from '../shared/config/app-config';
import { createRootLogger } from '../shared/logging/logger';
import { CliArgs, CliOutput, CliUsageError } from './cli-args';
import { CLI_USAGE, isCliCommand } from './cli-usage';
import { HTTP_CLI_COMMANDS } from './webhooks-cli';

function parseArgs(argv: string[]): CliArgs {
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

/** Prints one JSON object on stdout; errors go to stderr as JSON with a non-zero exit code. */
async function main(): Promise<number> {
  const [name, ...rest] = process.argv.slice(2);
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  // These talk to a running service over HTTP: no database is opened for them.
  const httpCommand = name ? HTTP_CLI_COMMANDS[name] : undefined;
  if (httpCommand) return httpCommand.run(parseArgs(rest), (line) => process.stdout.write(`${line}\n`));
  if (!isCliCommand(name) && name !== 'migrate') {
    process.stderr.write(`${name ? `Unknown command "${name}"\n\n` : ''}${usage()}\n`);
    return 2;
  }
  // The application only now: help, usage errors and the HTTP commands above start without it (2.5 s to 0.2 s).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for a database command
  const { createCliContext, resolveDatabase, runMigrations } = require('../bootstrap') as typeof import('../bootstrap.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for a database command
  const { CLI_COMMANDS } = require('./cli-commands') as typeof import('./cli-commands.js');
  const command = isCliCommand(name) ? CLI_COMMANDS[name] : undefined;
  const config = loadConfig(process.env, 'cli');
  const logger = createRootLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL);
  const database = await resolveDatabase(config, true);
  const app = await createCliContext(config, database.url, logger);
  try {
    const applied = await runMigrations(app);
    const result = command ? await command.run(parseArgs(rest), app) : { applied };
    // A command that prints for people (doctor) says its own exit code.
    if (result instanceof CliOutput) {
      process.stdout.write(`${result.text}\n`);
      return result.code;
    }
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    await app.close();
    await database.embedded?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof CliUsageError) {
      process.stderr.write(`${JSON.stringify({ error: e.message, usage: usage() })}\n`);
      process.exit(2);
    }
    if (e instanceof DomainError) {
      process.stderr.write(`${JSON.stringify({ error: e.message, code: e.code, validator: e.fields })}\n`);
      process.exit(1);
    }
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`${JSON.stringify({ error: e instanceof Error ? e.message : String(e) })}\n`);
    process.exit(1);
  },
);
