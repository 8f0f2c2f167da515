import type { IncomingTransfer } from '../domain/payment-rail';
import type { DepositAddressRow } from '../persistence/deposit-addresses.repository';
import { MempoolWatch } from './mempool';
import type { PaymentRecorder } from './payment-recorder';
import type { WatcherContext } from './watcher-context';

/** An unmined transfer of `units` to `to` in transaction `tx`. */
const transfer = (tx: string, to: string, units = 1000n) =>
  ({ asset: null, to, units, txHash: tx, output: '0', blockNumber: -1n, blockHash: '' }) as unknown as IncomingTransfer;

describe('MempoolWatch.scan', () => {
  it("records the mempool's transfers in turns across organizations: one organization's thousand do not go before another's one", async () => {
    const rows = [
      { address: 'a1', organization_id: 'org_a' },
      { address: 'b1', organization_id: 'org_b' },
    ] as DepositAddressRow[];
    const pending = [...Array.from({ length: 1000 }, (_, i) => transfer(`ta${i}`, 'a1')), transfer('tb', 'b1')];
    const ctx = {
      config: { mode: 'test', network: 'litecoin' },
      follower: { pending: () => Promise.resolve({ transfers: pending, txids: new Set(pending.map((t) => t.txHash)) }) },
      deps: {
        manager: {},
        clock: { now: () => new Date('2026-12-01T00:00:00Z') },
        addresses: { watchedUpTo: () => Promise.resolve(rows) },
        state: { findTransfer: () => Promise.resolve(null), unmined: () => Promise.resolve([]) },
      },
    } as unknown as WatcherContext;
    const recorded: string[] = [];
    const recorder = {
      recordUnmined: (t: IncomingTransfer, owner: DepositAddressRow) => {
        recorded.push(`${owner.organization_id}:${t.txHash}`);
        return Promise.resolve();
      },
    } as unknown as PaymentRecorder;

    await new MempoolWatch(ctx, recorder).scan(100n);
    expect(recorded).toHaveLength(1001);
    expect(recorded.slice(0, 2)).toEqual(['org_a:ta0', 'org_b:tb']);
  });
});
