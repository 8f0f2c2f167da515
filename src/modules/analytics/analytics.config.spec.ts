import { startupFailure } from '../../shared/config/startup-failure';
import { loadAnalyticsConfig } from './analytics.config';

/*
 * Settings refused at start-up. The service checks these before it starts anything (main.ts) and
 * ends with startupFailure's code and message; test/e2e/foundation/config.e2e-spec.ts starts the
 * built process on a few of them to see that a refusal really stops it that way.
 */

/** The settings the end-to-end harness starts the service with (test/support/server.ts runUntilExit). */
const BASE: NodeJS.ProcessEnv = { NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'postgres://127.0.0.1:1/none' };

/**
 * A start on `env` over that base, as far as loadAnalyticsConfig decides it, ended the way main.ts ends a
 * refused start (startupFailure): the exit code and what the process writes (0 and nothing when it passes).
 */
function start(env: Record<string, string>): { code: number | null; output: string } {
  try {
    loadAnalyticsConfig({ ...BASE, ...env });
    return { code: 0, output: '' };
  } catch (e) {
    const failure = startupFailure(e);
    return { code: failure.code, output: failure.stderr };
  }
}

describe('analytics settings refused at start-up', () => {
  it('passes the base, so each refusal below is the one setting', () => {
    expect(start({})).toEqual({ code: 0, output: '' });
  });

  it.each([['ANALYTICS_FOLD_SECONDS', '-1']])('refuses %s=%s with a message naming the variable', (name, value) => {
    const { code, output } = start({ [name]: value });
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(output).toContain('Invalid configuration');
    expect(output).toMatch(new RegExp(`^\\s+${name}="?${value.replace('.', '\\.')}"?: `, 'm'));
    expect(output).not.toContain('listening');
  });
});
