import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { TurnBatchedOutput } from './turn-batched-output';

/**
 * Structured JSON logs on standard output; keys and tokens never reach them. The service writes
 * them asynchronously (`buffered`): the lines of one turn of the event loop (a busy process answers
 * several requests in one) are handed on together once the turn's work is done, and lines written
 * while a write is under way go out together in the next one, so a busy process makes one write per
 * batch instead of one per line; what is left is written when the process exits. The CLI hands its
 * own writer (`write`: the output of the command that runs).
 */
export function createRootLogger(level: string, options: { buffered?: boolean; write?: (line: string) => void } = {}): Logger {
  const destination = options.write
    ? { write: options.write }
    : options.buffered
      ? new TurnBatchedOutput(pino.destination({ dest: 1, sync: false }))
      : pino.destination({ dest: 1, sync: true });
  return pino(
    {
      level,
      base: { service: 'invoicing-api', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-admin-token"]', 'req.headers.cookie', '*.test_key', '*.live_key', '*.key', '*.secret'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/**
 * Nest's own start-up narration (each module wired, each route mapped: about a hundred lines) says
 * nothing an operator acts on, so it goes out at debug; what the service itself says at start stays at info.
 */
const WIRING_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** Routes Nest's own log calls into pino. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly root: Logger) {}

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace', message: unknown, context?: string, extra?: unknown) {
    const fields = { context, ...(extra !== undefined ? { detail: extra } : {}) };
    if (message && typeof message === 'object') this.root[level]({ ...fields, ...message });
    else this.root[level](fields, String(message));
  }

  log(message: unknown, context?: string) {
    this.write(context && WIRING_CONTEXTS.has(context) ? 'debug' : 'info', message, context);
  }
  error(message: unknown, trace?: string, context?: string) {
    this.write('error', message, context, trace);
  }
  warn(message: unknown, context?: string) {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string) {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string) {
    this.write('trace', message, context);
  }
}
