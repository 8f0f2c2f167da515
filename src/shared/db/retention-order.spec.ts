import { passOrder } from './retention-order';
import type { RetentionPlan, RetentionReference } from './partition-retention';

const plan = (name: string, ...tables: string[]): RetentionPlan => ({
  name,
  tables: tables.map((table) => ({ table, column: 'id' })),
  key: { kind: 'id', prefix: `${name}_` },
  unit: 'month',
  ahead: 2,
  retentionDays: () => 30,
});

describe('passOrder', () => {
  const events = plan('events', 'events');
  const deliveries = plan('webhook-deliveries', 'webhook_deliveries', 'webhook_attempts');
  const rates = plan('rate-history', 'rate_snapshots');
  const usage = plan('usage-events', 'usage_events');

  it('runs a plan whose table holds keys of another before it, whatever the order of registration', () => {
    const references = new Map<string, RetentionReference[]>([['events', [{ table: 'webhook_deliveries', column: 'event_id' }]]]);
    expect(passOrder([events, deliveries, rates], references).map((p) => p.name)).toEqual(['webhook-deliveries', 'events', 'rate-history']);
    expect(passOrder([deliveries, events, rates], references).map((p) => p.name)).toEqual(['webhook-deliveries', 'events', 'rate-history']);
  });

  it("keeps the order of registration where no plan holds another plan's keys (references from tables of no plan do not count)", () => {
    const references = new Map<string, RetentionReference[]>([
      [
        'rate-history',
        [
          { table: 'payments', column: 'rates_snapshot_id' },
          { table: 'invoices', column: 'rates_snapshot_id' },
        ],
      ],
    ]);
    expect(passOrder([usage, rates, events], references).map((p) => p.name)).toEqual(['usage-events', 'rate-history', 'events']);
  });

  it("runs every plan once when plans hold each other's keys in a circle", () => {
    const references = new Map<string, RetentionReference[]>([
      ['events', [{ table: 'webhook_deliveries', column: 'event_id' }]],
      ['webhook-deliveries', [{ table: 'events', column: 'delivery_id' }]],
    ]);
    expect(passOrder([events, deliveries], references).map((p) => p.name)).toEqual(['events', 'webhook-deliveries']);
  });
});
