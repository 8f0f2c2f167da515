import { REFUSED, refusalFacts, startOutcome } from '../../shared/config/start-outcome';
import { loadWebhooksConfig } from './webhooks.config';

/*
 * Settings refused at start-up. The service checks these before it starts anything (main.ts) and
 * ends with startupFailure's code and message; test/e2e/foundation/config.e2e-spec.ts starts the
 * built process on a few of them to see that a refusal really stops it that way.
 */

/** A start on `env` over the harness's settings, as far as loadWebhooksConfig decides it (startOutcome). */
const start = (env: Record<string, string>) => startOutcome(loadWebhooksConfig, env);

describe('webhooks settings refused at start-up', () => {
  it('passes the base, so each refusal below is the one setting', () => {
    expect(start({})).toEqual({ code: 0, output: '' });
  });

  it.each([
    ['WEBHOOK_RETRY_SCHEDULE', 'often'],
    ['WEBHOOK_DELIVERIES_RETENTION_DAYS', '-1'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(refusalFacts(start({ [name]: value }), name, value)).toEqual(REFUSED);
  });
});
