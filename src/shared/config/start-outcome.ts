import { startupFailure } from './startup-failure';

/** The settings the end-to-end harness starts the service with (test/support/server.ts runUntilExit). */
export const HARNESS_ENV: NodeJS.ProcessEnv = { NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'postgres://127.0.0.1:1/none' };

/** How a start ended: its exit code and what the process wrote (0 and nothing when it passed). */
export interface StartOutcome {
  code: number | null;
  output: string;
}

/**
 * A start on `env` over `base` (the harness's settings), as far as the settings loader `load` decides it,
 * ended the way main.ts ends a refused start (startupFailure). The config loaders' unit specs test their
 * refusals with it instead of starting the built process for each.
 */
export function startOutcome(load: (env: NodeJS.ProcessEnv) => unknown, env: Record<string, string>, base: NodeJS.ProcessEnv = HARNESS_ENV): StartOutcome {
  try {
    load({ ...base, ...env });
    return { code: 0, output: '' };
  } catch (e) {
    const failure = startupFailure(e);
    return { code: failure.code, output: failure.stderr };
  }
}

/** What a refused start shows about the setting `name`=`value` (each true for a refusal, `listening` false). */
export interface RefusalFacts {
  /** It ended with an exit code other than 0. */
  failed: boolean;
  /** Its output says the configuration is invalid... */
  invalid: boolean;
  /** ...on a line naming the variable and its value. */
  named: boolean;
  /** It got as far as listening. */
  listening: boolean;
}

/** What a refused start is: failed, invalid, the variable named, never listening. */
export const REFUSED: RefusalFacts = { failed: true, invalid: true, named: true, listening: false };

/** The facts of `outcome` for a start refused on `name`=`value` (compare with REFUSED). */
export function refusalFacts({ code, output }: StartOutcome, name: string, value: string): RefusalFacts {
  return {
    failed: code !== 0 && code !== null,
    invalid: output.includes('Invalid configuration'),
    named: new RegExp(`^\\s+${name}="?${value.replace('.', '\\.')}"?: `, 'm').test(output),
    listening: output.includes('listening'),
  };
}
