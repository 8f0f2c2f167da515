import { REFUSED, refusalFacts, startOutcome } from '../../shared/config/start-outcome';
import { loadEventsConfig } from './events.config';

/** A start on `env` over the harness's settings, as far as loadEventsConfig decides it (startOutcome). */
const start = (env: Record<string, string>) => startOutcome(loadEventsConfig, env);

describe('events settings refused at start-up', () => {
  it('passes the base, so each refusal below is the one setting', () => {
    expect(start({})).toEqual({ code: 0, output: '' });
  });

  it.each([
    ['EVENTS_RETENTION_DAYS', 'forever'],
    ['EVENTS_RETENTION_DAYS', '-1'],
    ['EVENTS_RETENTION_DAYS', '36501'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(refusalFacts(start({ [name]: value }), name, value)).toEqual(REFUSED);
  });

  it('keeps 90 days by default, and 0 keeps every event', () => {
    expect(loadEventsConfig({}).EVENTS_RETENTION_DAYS).toBe(90);
    expect(loadEventsConfig({ EVENTS_RETENTION_DAYS: '0' }).EVENTS_RETENTION_DAYS).toBe(0);
  });
});
