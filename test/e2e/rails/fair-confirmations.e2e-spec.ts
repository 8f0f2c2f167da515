import type { Address } from 'viem';
import { IsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { createInvoice } from '../payments/payments-helpers';
import { databaseOf, waitFor } from '../timing/timing-helpers';
import { ChainSetup, merchant, Merchant, paymentAddress, startChain, startWatchingService, units, waitForPayments } from './chain-helpers';

interface Counted {
  organization_id: string;
  confirmations: number;
  block_number: string;
  updated_at: Date;
}

/**
 * Fair confirmation counts (decisions §22): the chain watcher counts the confirmations of pending
 * payments in batches taken round-robin across organizations, at most WORKER_ORG_BATCH of one
 * organization per batch, each organization's least recently counted first. Two organizations have
 * eight payments counting each, all mined before a third organization's one: at the next block the
 * third organization's payment is counted in the first batch, not after the others'. Recording is in
 * turns too: the transfers of a range are recorded one of each organization at a time.
 */
describe('the chain watcher counts confirmations and records transfers in turns across organizations', () => {
  let setup: ChainSetup;
  let service: IsolatedService;
  beforeAll(async () => {
    setup = await startChain();
    service = await startWatchingService(setup, { WORKER_ORG_BATCH: '2', RATE_LIMIT_ENABLED: 'false' });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await setup?.chain.stop();
  });

  /** One USDT invoice for each merchant listed (a merchant listed n times has n), paid in one transaction in that order (one Transfer log each); their ids. */
  async function paidTogether(shops: Merchant[], from: number): Promise<string[]> {
    const ids: string[] = [];
    const to: Address[] = [];
    for (const shop of shops) {
      const id = await createInvoice(shop.test, '10', 'USDT');
      ids.push(id);
      to.push((await paymentAddress(shop.test, id)).address as Address);
    }
    await setup.chain.receipt(
      await setup.chain.sendTokenMany(
        setup.usdt,
        from,
        to,
        to.map(() => units('10', 6)),
      ),
    );
    return ids;
  }

  it("counts a third organization's payment in the first batch of a block while two organizations have 16 counting", async () => {
    const flooders = [await merchant(service), await merchant(service)];
    const quiet = await merchant(service);
    const flood = [...(await paidTogether(Array(8).fill(flooders[0]), 1)), ...(await paidTogether(Array(8).fill(flooders[1]), 2))];
    const [mine] = await paidTogether([quiet], 3);
    for (const [shop, ids] of [
      [flooders[0], flood.slice(0, 8)],
      [flooders[1], flood.slice(8)],
      [quiet, [mine]],
    ] as const) {
      for (const id of ids) await waitForPayments(shop.test, id, (p) => p.length === 1 && p[0].status === 'PENDING', 30_000);
    }
    const db = databaseOf(service);
    const counted = (head: bigint) =>
      waitFor(
        () =>
          withClient(
            db,
            async (c) => (await c.query(`SELECT organization_id, confirmations, block_number::text, updated_at FROM chain_transfers`)).rows as Counted[],
          ),
        (rows) => rows.length === 17 && rows.every((r) => BigInt(r.confirmations) === head - BigInt(r.block_number) + 1n),
        30_000,
      );
    // Every payment counted up to the head, then one more block.
    await counted(await setup.chain.blockNumber());
    await setup.chain.mine(1);
    const rows = await counted(await setup.chain.blockNumber());

    const quietRow = rows.find((r) => r.organization_id === quiet.id)!;
    expect(BigInt(quietRow.block_number)).toBeGreaterThan(BigInt(Math.max(...rows.filter((r) => r !== quietRow).map((r) => Number(r.block_number)))));
    const countedFirst = rows.filter((r) => r !== quietRow && r.updated_at < quietRow.updated_at);
    // In block order the quiet payment would be counted last, after all 16; in turns, the first batch
    // holds at most two of each flooding organization besides it.
    expect(countedFirst.length).toBeLessThanOrEqual(4);
  }, 180_000);

  it("records a quiet organization's payment in the first turn, not after another's dozen transfers before it in the same transaction", async () => {
    const flooder = await merchant(service);
    const quiet = await merchant(service);
    // One transaction: twelve transfers to the flooder's invoices, then one to the quiet organization's (last in chain order).
    const ids = await paidTogether([...Array<Merchant>(12).fill(flooder), quiet], 4);
    const mine = ids[ids.length - 1];
    await waitForPayments(quiet.test, mine, (p) => p.length === 1, 30_000);
    for (const id of ids.slice(0, 12)) await waitForPayments(flooder.test, id, (p) => p.length === 1, 30_000);
    const rows = await withClient(
      databaseOf(service),
      async (c) =>
        (await c.query(`SELECT organization_id, created_at FROM chain_transfers WHERE organization_id = ANY($1) ORDER BY created_at`, [[flooder.id, quiet.id]]))
          .rows as Array<{ organization_id: string; created_at: Date }>,
    );
    expect(rows).toHaveLength(13);
    const quietRow = rows.find((r) => r.organization_id === quiet.id)!;
    // In chain order the quiet payment would be recorded thirteenth; in turns, after at most the flooder's first.
    expect(rows.filter((r) => r.organization_id === flooder.id && r.created_at < quietRow.created_at).length).toBeLessThanOrEqual(1);
  }, 180_000);
});
