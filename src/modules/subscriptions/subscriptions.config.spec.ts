import { ConfigError } from '../../shared/config/app-config';
import { loadSubscriptionsConfig } from './subscriptions.config';

describe('subscriptions settings', () => {
  it('keeps 400 days of usage events by default; 0 keeps them all', () => {
    expect(loadSubscriptionsConfig({}).USAGE_EVENTS_RETENTION_DAYS).toBe(400);
    expect(loadSubscriptionsConfig({ USAGE_EVENTS_RETENTION_DAYS: '0' }).USAGE_EVENTS_RETENTION_DAYS).toBe(0);
    expect(loadSubscriptionsConfig({ USAGE_EVENTS_RETENTION_DAYS: '31' }).USAGE_EVENTS_RETENTION_DAYS).toBe(31);
  });

  it.each(['-1', 'forever', '36501'])('refuses USAGE_EVENTS_RETENTION_DAYS=%s, naming it', (value) => {
    expect(() => loadSubscriptionsConfig({ USAGE_EVENTS_RETENTION_DAYS: value })).toThrow(ConfigError);
    expect(() => loadSubscriptionsConfig({ USAGE_EVENTS_RETENTION_DAYS: value })).toThrow(/USAGE_EVENTS_RETENTION_DAYS=/);
  });
});
