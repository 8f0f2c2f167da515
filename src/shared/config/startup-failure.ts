import { ConfigError } from './app-config';

/**
 * How a failed start ends the service (main.ts): what it writes on stderr and its exit code. A refused
 * setting (a ConfigError from loadConfig or a module's settings loader) is its message alone, the
 * "Invalid configuration" lines naming each bad variable; anything else is the error's stack. Both
 * exit with code 1, so a supervisor sees the start failed.
 */
export function startupFailure(e: unknown): { code: number; stderr: string } {
  if (e instanceof ConfigError) return { code: 1, stderr: `${e.message}\n` };
  return { code: 1, stderr: `Start-up failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n` };
}
