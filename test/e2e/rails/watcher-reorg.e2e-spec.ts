import Decimal from 'decimal.js';
import type { Hex } from 'viem';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';
import { linesWith, runCli } from '../../support/server';
import { eventually, WebhookReceiver } from '../../support/webhook-receiver';
import { createInvoice, shortState } from '../payments/payments-helpers';
import { databaseOf } from '../timing/timing-helpers';
import { ChainSetup, merchant, paymentAddress, paymentsOf, startChain, startWatchingService, units, waitForPayments } from './chain-helpers';

interface Event {
  type: string;
  data: { object: { id: string; status?: string; substatus?: string | null }; previous_attributes?: Record<string, unknown> };
}

/** The organization's events, oldest first. */
async function eventsOf(api: Parameters<typeof paymentsOf>[0]): Promise<Event[]> {
  return (expectSuccess(await api.post('/events', { limit: 100 })).items as Event[]).reverse();
}

/**
 * Replaces the blocks since `snapshot` with a longer fork whose first block holds another token transfer
 * (paying a higher tip, so it comes first) and then the transaction `raw` (hash `hash`) again: its logs
 * come one log index later than before.
 */
async function forkWithTransferFirst(setup: ChainSetup, snapshot: Hex, raw: Hex, hash: Hex): Promise<void> {
  const { chain, usdt } = setup;
  await chain.test.revert({ id: snapshot });
  await chain.test.setAutomine(false);
  try {
    await chain.sendRaw(await chain.signTokenTransfer(usdt, 6, chain.account(7).address, 1n, 5_000_000_000n));
    expect(await chain.sendRaw(raw)).toBe(hash);
    await chain.mine(4);
  } finally {
    await chain.test.setAutomine(true);
  }
}

describe('the chain watcher when a reorg takes a payment out and the same transaction comes back, or goes deeper than its confirmations', () => {
  let setup: ChainSetup;
  let service: IsolatedService;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    setup = await startChain();
    service = await startWatchingService(setup);
    receiver = await WebhookReceiver.start();
  }, 120_000);
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
    await setup?.chain.stop();
  });

  it('keeps one payment when the reorg puts its transaction in a later block at another log index', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '10', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId);
    const raw = await chain.signTokenTransfer(usdt, 5, pay.address, units('10', 6));
    const snapshot = await chain.test.snapshot();
    const hash = await chain.sendRaw(raw);
    const first = await chain.receipt(hash);
    await chain.mine(1);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].confirmations >= 2);
    expect(seen).toMatchObject({ status: 'PENDING', idempotency_key: `ethereum:${hash}:${first.logs[0].logIndex}` });

    // A fork replaces those blocks: its first block holds another token transfer (paying a higher tip,
    // so it comes first) and then the same transaction; the fork is longer than the chain it replaces.
    await forkWithTransferFirst(setup, snapshot, raw, hash);
    const again = await chain.receipt(hash);
    expect(again.blockNumber).toBe(first.blockNumber);
    expect(again.blockHash).not.toBe(first.blockHash);
    expect(again.logs[0].logIndex).not.toBe(first.logs[0].logIndex);

    // The rescan finds it under another key: it adopts the payment (confirmations counted from the new block).
    await eventually(async () => {
      const head = await chain.blockNumber();
      const [p] = await paymentsOf(shop.test, invoiceId);
      expect(p.confirmations).toBe(Number(head - again.blockNumber + 1n));
    });
    await chain.mine(8);
    const done = await waitForPayments(shop.test, invoiceId, (p) => p.some((x) => x.status === 'COMPLETED'));
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ id: seen.id, status: 'COMPLETED', confirmations: 12 });
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
    // A few more blocks: still one payment, never cancelled.
    await chain.mine(3);
    await new Promise((r) => setTimeout(r, 600));
    expect(await paymentsOf(shop.test, invoiceId)).toHaveLength(1);
    const statuses = (await eventsOf(shop.test)).filter((e) => e.type.startsWith('payment.') && e.data.object.id === seen.id).map((e) => e.data.object.status);
    expect(statuses).not.toContain('CANCELLED');
  });

  it("cancels the payment when the reorg mines its transaction again and it fails there (the payer's tokens moved first)", async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '11', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId);
    // The payer (account 8) has let account 9 move its tokens.
    const balance = await chain.tokenBalance(usdt, chain.account(8).address);
    await chain.receipt(await chain.approveToken(usdt, 8, 9, balance));
    const raw = await chain.signTokenTransfer(usdt, 8, pay.address, units('11', 6));
    const snapshot = await chain.test.snapshot();
    const hash = await chain.sendRaw(raw);
    const first = await chain.receipt(hash);
    expect(first.status).toBe('success');
    await chain.mine(1);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].confirmations >= 2);
    expect(seen.status).toBe('PENDING');

    // A longer fork: account 9 moves all the payer's tokens away first (a higher tip), then the same transaction,
    // which now fails for want of a balance.
    await chain.test.revert({ id: snapshot });
    await chain.test.setAutomine(false);
    try {
      await chain.sendRaw(await chain.signTokenTransferFrom(usdt, 9, 8, chain.account(7).address, balance, 5_000_000_000n));
      expect(await chain.sendRaw(raw)).toBe(hash);
      await chain.mine(4);
    } finally {
      await chain.test.setAutomine(true);
    }
    const again = await chain.receipt(hash);
    expect(again.status).toBe('reverted');
    expect(again.blockHash).not.toBe(first.blockHash);

    // The transaction is in a block but pays nobody: the payment is cancelled and the invoice waits again.
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'CANCELLED', 20_000);
    expect((await shortState(shop.test, invoiceId)).status).toBe('PENDING');
    // Past the confirmations it would have needed: still cancelled, the invoice not paid.
    await chain.mine(12);
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await paymentsOf(shop.test, invoiceId)).map((p) => p.status)).toEqual(['CANCELLED']);
    expect((await shortState(shop.test, invoiceId)).status).toBe('PENDING');
  });

  it("keeps each invoice's one payment when the reorg moves a transaction paying two invoices so one transfer takes the other's log index", async () => {
    const { chain, usdt } = setup;
    const [shopA, shopB] = [await merchant(service), await merchant(service)];
    const invoiceA = await createInvoice(shopA.test, '10', 'USDT');
    // Paid half: counted twice, it would read as paid in full.
    const invoiceB = await createInvoice(shopB.test, '14', 'USDT');
    const [payA, payB] = [await paymentAddress(shopA.test, invoiceA), await paymentAddress(shopB.test, invoiceB)];
    const raw = await chain.signTokenMany(usdt, 5, [payA.address, payB.address], [units('10', 6), units('7', 6)]);
    const snapshot = await chain.test.snapshot();
    const hash = await chain.sendRaw(raw);
    const first = await chain.receipt(hash);
    await chain.mine(1);
    const [seenA] = await waitForPayments(shopA.test, invoiceA, (p) => p.length === 1 && p[0].confirmations >= 2);
    const [seenB] = await waitForPayments(shopB.test, invoiceB, (p) => p.length === 1 && p[0].confirmations >= 2);

    // The fork puts another token transfer first in the block: A's transfer now has the log index B's had.
    await forkWithTransferFirst(setup, snapshot, raw, hash);
    const again = await chain.receipt(hash);
    expect(again.blockHash).not.toBe(first.blockHash);
    expect(again.logs[0].logIndex).toBe(first.logs[1].logIndex);

    await eventually(async () => {
      const head = await chain.blockNumber();
      for (const [api, id] of [
        [shopA.test, invoiceA],
        [shopB.test, invoiceB],
      ] as const) {
        const payments = await paymentsOf(api, id);
        expect(payments).toHaveLength(1);
        expect(payments[0].confirmations).toBe(Number(head - again.blockNumber + 1n));
      }
    });
    await chain.mine(8);
    const doneA = await waitForPayments(shopA.test, invoiceA, (p) => p.some((x) => x.status === 'COMPLETED'));
    const doneB = await waitForPayments(shopB.test, invoiceB, (p) => p.some((x) => x.status === 'COMPLETED'));
    await new Promise((r) => setTimeout(r, 600));
    expect((await paymentsOf(shopA.test, invoiceA)).map((p) => p.id)).toEqual([seenA.id]);
    expect((await paymentsOf(shopB.test, invoiceB)).map((p) => p.id)).toEqual([seenB.id]);
    expect([doneA[0].id, doneB[0].id]).toEqual([seenA.id, seenB.id]);
    expect((await shortState(shopA.test, invoiceA)).status).toBe('COMPLETED');
    expect((await shortState(shopB.test, invoiceB)).status).not.toBe('COMPLETED');
  });

  it("keeps each refused transfer of a two-invoice transaction as its own unmatched transfer when a reorg moves one onto the other's log index", async () => {
    const { chain, usdt } = setup;
    const [shopA, shopB] = [await merchant(service), await merchant(service)];
    const invoiceA = await createInvoice(shopA.test, '10', 'USDT');
    const invoiceB = await createInvoice(shopB.test, '14', 'USDT');
    const [payA, payB] = [await paymentAddress(shopA.test, invoiceA), await paymentAddress(shopB.test, invoiceB)];
    // Both merchants turn the provider off after handing out the addresses: the transfers are refused and kept.
    for (const shop of [shopA, shopB]) {
      expect((await runCli(['provider:disable', '--org', shop.id, '--provider', 'prov_ethereum_usdt', '--mode', 'test'], service.cliEnv)).code).toBe(0);
    }
    const third = await createInvoice(shopB.test, '1', 'USDT');
    await eventually(async () => expect((await shopB.test.post(`/invoices/${third}/payment_address`, { provider_id: 'prov_ethereum_usdt' })).status).toBe(400));
    const raw = await chain.signTokenMany(usdt, 5, [payA.address, payB.address], [units('10', 6), units('7', 6)]);
    const snapshot = await chain.test.snapshot();
    const hash = await chain.sendRaw(raw);
    const first = await chain.receipt(hash);
    const unmatched = async (api: typeof shopA.test) =>
      (
        expectSuccess(await api.get('/rails/unmatched')).items as Array<{
          address: string;
          amount: string;
          in_doubt: boolean;
          idempotency_key: string;
          log_index: number;
        }>
      ).map((t) => ({ address: t.address, amount: t.amount, in_doubt: t.in_doubt, key: t.idempotency_key, log_index: t.log_index }));
    await eventually(async () => {
      expect(await unmatched(shopA.test)).toHaveLength(1);
      expect(await unmatched(shopB.test)).toHaveLength(1);
    }, 20_000);

    // The fork puts another token transfer first in the block: A's transfer now has the log index B's had.
    await forkWithTransferFirst(setup, snapshot, raw, hash);
    const again = await chain.receipt(hash);
    expect(again.logs[0].logIndex).toBe(first.logs[1].logIndex);
    // Each organization keeps one transfer, its own (address and amount), no longer in doubt, under its new key.
    const kept = (pay: { address: string }, amount: RegExp, log: number) => [
      { address: pay.address, amount: expect.stringMatching(amount), in_doubt: false, key: `ethereum:${hash}:${log}`, log_index: log },
    ];
    await eventually(async () => {
      expect(await unmatched(shopA.test)).toEqual(kept(payA, /^10\.0+$/, again.logs[0].logIndex));
      expect(await unmatched(shopB.test)).toEqual(kept(payB, /^7\.0+$/, again.logs[1].logIndex));
    }, 20_000);
  });

  it('reinstates a payment cancelled by a reorg when the same transaction is mined again, with its events', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const endpoint = `/reinstated-${shop.id}`;
    expectSuccess(
      await shop.test.post('/webhooks', { url: receiver.url(endpoint), event_types: ['payment.updated', 'invoice.updated', 'invoice.completed'] }),
      201,
    );
    const invoiceId = await createInvoice(shop.test, '12', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId);
    const raw = await chain.signTokenTransfer(usdt, 5, pay.address, units('12', 6));
    const snapshot = await chain.test.snapshot();
    const hash = await chain.sendRaw(raw);
    const first = await chain.receipt(hash);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen.status).toBe('PENDING');

    // The block is replaced by a longer fork without the transaction: the payment is cancelled.
    await chain.test.revert({ id: snapshot });
    await chain.mine(3);
    await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'CANCELLED');
    expect((await shortState(shop.test, invoiceId)).status).toBe('PENDING');

    // The same transaction is mined again later: the same payment comes back, PENDING, then COMPLETED.
    expect(await chain.sendRaw(raw)).toBe(hash);
    const again = await chain.receipt(hash);
    expect(again.blockNumber).toBeGreaterThan(first.blockNumber);
    const [back] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'PENDING');
    expect(back).toMatchObject({ id: seen.id, confirmations: 1 });
    expect((await shortState(shop.test, invoiceId)).status).toBe('WAITING_FOR_CONFIRMATIONS');
    await chain.mine(11);
    const done = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ id: seen.id, confirmations: 12 });
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });

    // payment.updated: CANCELLED (from PENDING), PENDING again (from CANCELLED), ..., COMPLETED; the invoice followed.
    const moves = (await eventsOf(shop.test))
      .filter((e) => e.type === 'payment.updated' && e.data.object.id === seen.id && e.data.previous_attributes?.status)
      .map((e) => `${e.data.previous_attributes!.status}->${e.data.object.status}`);
    expect(moves).toEqual(['PENDING->CANCELLED', 'CANCELLED->PENDING', 'PENDING->COMPLETED']);
    const invoiceMoves = (await eventsOf(shop.test))
      .filter((e) => e.type === 'invoice.updated' && e.data.object.id === invoiceId)
      .map((e) => `${e.data.previous_attributes!.status as string}->${e.data.object.status}`);
    expect(invoiceMoves).toEqual([
      'PENDING->WAITING_FOR_CONFIRMATIONS',
      'WAITING_FOR_CONFIRMATIONS->PENDING',
      'PENDING->WAITING_FOR_CONFIRMATIONS',
      'WAITING_FOR_CONFIRMATIONS->COMPLETED',
    ]);
    // Each of them delivered to the merchant's endpoint (deliveries may arrive in any order).
    const hooks = await receiver.waitFor(
      (all) => all.filter((w) => w.path === endpoint && w.json.type === 'invoice.updated' && w.json.data.object.id === invoiceId).length >= 4,
    );
    const delivered = hooks
      .filter((w) => w.path === endpoint && w.json.type === 'invoice.updated' && w.json.data.object.id === invoiceId)
      .map((w) => `${w.json.data.previous_attributes.status}->${w.json.data.object.status}`);
    expect([...delivered].sort()).toEqual([...invoiceMoves].sort());
    expect(hooks.some((w) => w.path === endpoint && w.json.type === 'payment.updated' && w.json.data.previous_attributes.status === 'CANCELLED')).toBe(true);
    expect(linesWith(service.server, 'chain_payment_reinstated').some((l) => l.includes(seen.id))).toBe(true);
  });

  it('still sees a cancelled payment’s transaction come back after its address’s watch window has closed', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '9', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId);
    // The invoice's window is about to close: its address is watched for 6 more seconds.
    const database = databaseOf(service);
    const watchUntil = () =>
      withClient(
        database,
        async (c) => (await c.query(`SELECT watch_until FROM deposit_addresses WHERE invoice_id = $1`, [invoiceId])).rows[0].watch_until as Date,
      );
    await withClient(database, (c) => c.query(`UPDATE deposit_addresses SET watch_until = now() + interval '6 seconds' WHERE invoice_id = $1`, [invoiceId]));
    const closesAt = (await watchUntil()).getTime();
    const raw = await chain.signTokenTransfer(usdt, 5, pay.address, units('9', 6));
    const snapshot = await chain.test.snapshot();
    const hash = await chain.sendRaw(raw);
    await chain.receipt(hash);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);

    await chain.test.revert({ id: snapshot });
    await chain.mine(3);
    await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'CANCELLED');
    // The cancellation keeps the address watched for another monitoring window (24 hours here): the watcher
    // extends it right after it records the cancellation, in the next transaction.
    await eventually(async () => expect((await watchUntil()).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000));

    // The transaction returns once the window it had would have closed.
    await new Promise((r) => setTimeout(r, Math.max(0, closesAt - Date.now() + 500)));
    expect(await chain.sendRaw(raw)).toBe(hash);
    await chain.receipt(hash);
    const [back] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'PENDING');
    expect(back).toMatchObject({ id: seen.id, confirmations: 1 });
    await chain.mine(11);
    const done = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    expect(done).toHaveLength(1);
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED' });
  });

  it('cancels COMPLETED payments when a reorg goes deeper than their confirmations: the invoice is recomputed and the events sent', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const set = await runCli(
      ['provider:confirmations', '--org', shop.id, '--provider', 'prov_ethereum_usdt', '--count', '2', '--mode', 'test'],
      service.cliEnv,
    );
    expect(set.code).toBe(0);
    const endpoint = `/reversed-${shop.id}`;
    expectSuccess(await shop.test.post('/webhooks', { url: receiver.url(endpoint), event_types: ['payment.updated', 'invoice.updated'] }), 201);
    const full = await createInvoice(shop.test, '10', 'USDT');
    const part = await createInvoice(shop.test, '10', 'USDT');
    const [payFull, payPart] = [await paymentAddress(shop.test, full), await paymentAddress(shop.test, part)];

    const snapshot = await chain.test.snapshot();
    await chain.receipt(await chain.sendToken(usdt, 1, payFull.address, units('10', 6)));
    await chain.receipt(await chain.sendToken(usdt, 2, payPart.address, units('4', 6)));
    await chain.mine(1);
    const [paidFull] = await waitForPayments(shop.test, full, (p) => p[0]?.status === 'COMPLETED');
    const [paidPart] = await waitForPayments(shop.test, part, (p) => p[0]?.status === 'COMPLETED');
    expect(paidFull.required_confirmations).toBe(2);
    expect(await shortState(shop.test, full)).toMatchObject({ status: 'COMPLETED', substatus: null });
    expect(await shortState(shop.test, part)).toMatchObject({ status: 'PARTIALLY_PAID', substatus: 'PAID_PARTIAL' });

    // Three blocks deep, then replaced by a longer fork without either transaction.
    await chain.test.revert({ id: snapshot });
    await chain.mine(5);
    const [reversedFull] = await waitForPayments(shop.test, full, (p) => p[0].status === 'CANCELLED');
    const [reversedPart] = await waitForPayments(shop.test, part, (p) => p[0].status === 'CANCELLED');
    expect([reversedFull.id, reversedPart.id]).toEqual([paidFull.id, paidPart.id]);
    // A COMPLETED invoice stays COMPLETED (final) and says its payment was reversed; the part-paid one is unpaid again.
    expect(await shortState(shop.test, full)).toMatchObject({ status: 'COMPLETED', substatus: 'PAYMENT_REVERSED' });
    expect(await shortState(shop.test, part)).toMatchObject({ status: 'PENDING', substatus: null });

    // Delivered asynchronously: wait for both reversals and both invoices' last updates.
    const hooks = await receiver.waitFor((all) => {
      const here = all.filter((w) => w.path === endpoint);
      const cancelled = here.filter((w) => w.json.type === 'payment.updated' && w.json.data.object.status === 'CANCELLED').length;
      const reversed = here.some(
        (w) => w.json.type === 'invoice.updated' && w.json.data.object.id === full && w.json.data.object.substatus === 'PAYMENT_REVERSED',
      );
      const reopened = here.some((w) => w.json.type === 'invoice.updated' && w.json.data.object.id === part && w.json.data.object.status === 'PENDING');
      return cancelled >= 2 && reversed && reopened;
    });
    const mine = hooks.filter((w) => w.path === endpoint);
    for (const payment of [paidFull, paidPart]) {
      const reversal = mine.find((w) => w.json.type === 'payment.updated' && w.json.data.object.id === payment.id && w.json.data.object.status === 'CANCELLED');
      expect(reversal?.json.data.previous_attributes).toMatchObject({ status: 'COMPLETED' });
    }
    const invoiceUpdate = (id: string) => mine.filter((w) => w.json.type === 'invoice.updated' && w.json.data.object.id === id).map((w) => w.json.data.object);
    expect(invoiceUpdate(full).pop()).toMatchObject({ status: 'COMPLETED', substatus: 'PAYMENT_REVERSED' });
    expect(invoiceUpdate(part).pop()).toMatchObject({ status: 'PENDING', substatus: null });
    const errors = linesWith(service.server, 'chain_payment_reversed');
    expect(errors.filter((l) => l.includes(paidFull.id) || l.includes(paidPart.id))).toHaveLength(2);
    expect(errors.every((l) => l.includes('"level":50'))).toBe(true);

    // The invoice can be paid again on the new chain; the reversed payment stays cancelled.
    await chain.sendToken(usdt, 1, payPart.address, units('10', 6));
    await chain.mine(1);
    await waitForPayments(shop.test, part, (p) => p.length === 2 && p[1].status === 'COMPLETED');
    expect(await shortState(shop.test, part)).toMatchObject({ status: 'COMPLETED' });
    // A new payment that covers the reversed invoice again: its substatus follows the cover, as the
    // transaction's return would have made it.
    await chain.sendToken(usdt, 1, payFull.address, units('10', 6));
    await chain.mine(1);
    await waitForPayments(shop.test, full, (p) => p.length === 2 && p.some((x) => x.status === 'COMPLETED'));
    expect(await shortState(shop.test, full)).toMatchObject({ status: 'COMPLETED', substatus: null });
  });

  it('does not bring back a payment a provider cancelled when its transaction returns after a reorg', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '7', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId);
    const raw = await chain.signTokenTransfer(usdt, 5, pay.address, units('7', 6));
    const snapshot = await chain.test.snapshot();
    const hash = await chain.sendRaw(raw);
    await chain.receipt(hash);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    // Cancelled by a provider report (here the test helper), not by the chain: a final status.
    expectSuccess(await shop.test.post(`/test_helpers/payments/${seen.id}/status`, { status: 'CANCELLED' }));

    await chain.test.revert({ id: snapshot });
    await chain.mine(3);
    await eventually(async () => expect(linesWith(service.server, 'chain_payment_cancelled').some((l) => l.includes(seen.id))).toBe(true));
    expect(await chain.sendRaw(raw)).toBe(hash);
    await chain.receipt(hash);
    await chain.mine(11);
    await eventually(async () =>
      expect(linesWith(service.server, 'chain_report_refused').some((l) => l.includes(seen.id) && l.includes('invalid_state_transition'))).toBe(true),
    );
    const payments = await paymentsOf(shop.test, invoiceId);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ id: seen.id, status: 'CANCELLED' });
    expect((await shortState(shop.test, invoiceId)).status).toBe('PENDING');
  });
});

// On a chain of its own: the blocks it mines would shift the numbers the tests above revert to.
describe('the chain watcher when a reorg mines a payment again and it moves another amount', () => {
  let setup: ChainSetup;
  let service: IsolatedService;
  beforeAll(async () => {
    setup = await startChain();
    // Refund payouts checked every second, taken back after 3 seconds out of the node's sight.
    service = await startWatchingService(setup, { REFUND_CHECK_SECONDS: '1', REFUND_TX_GRACE_SECONDS: '3' });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await setup?.chain.stop();
  });

  /** A merchant whose USDT payments complete at 2 confirmations, and an invoice of 20 USDT with its payment address. */
  async function invoiceAtTwoConfirmations() {
    const shop = await merchant(service);
    const set = await runCli(
      ['provider:confirmations', '--org', shop.id, '--provider', 'prov_ethereum_usdt', '--count', '2', '--mode', 'test'],
      service.cliEnv,
    );
    expect(set.code).toBe(0);
    const invoiceId = await createInvoice(shop.test, '20', 'USDT');
    return { shop, invoiceId, pay: await paymentAddress(shop.test, invoiceId) };
  }

  /** Account #payer (no tokens of its own) is given 10 and sends all it holds to `to` in one call (sweep), after a snapshot. */
  async function sweepTen(payer: number, to: string) {
    const { chain, usdt } = setup;
    await chain.receipt(await chain.sendToken(usdt, 1, chain.account(payer).address, units('10', 6)));
    await chain.mineEach(1);
    const raw = await chain.signTokenSweep(usdt, payer, to);
    const snapshot = await chain.test.snapshot();
    const hash = await chain.sendRaw(raw);
    return { raw, hash, snapshot, first: await chain.receipt(hash) };
  }

  /** A longer fork from `snapshot`: the payer receives 5 more first (a higher tip), then the same sweep sends 15. */
  async function forkWithFiveMoreFirst(payer: number, sweep: { raw: Hex; hash: Hex; snapshot: Hex }) {
    const { chain, usdt } = setup;
    await chain.test.revert({ id: sweep.snapshot });
    await chain.test.setAutomine(false);
    try {
      await chain.sendRaw(await chain.signTokenTransfer(usdt, 1, chain.account(payer).address, units('5', 6), 5_000_000_000n));
      expect(await chain.sendRaw(sweep.raw)).toBe(sweep.hash);
      await chain.mineEach(4);
    } finally {
      await chain.test.setAutomine(true);
    }
    const again = await chain.receipt(sweep.hash);
    expect(again.status).toBe('success');
    return again;
  }

  it('cancels the payment when the reorg mines its transaction again and it moves another amount there, and records what arrived', async () => {
    const { chain } = setup;
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '20', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId);
    const payer = 12;
    const sweep = await sweepTen(payer, pay.address);
    const { hash, first } = sweep;
    await chain.mineEach(1);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].confirmations >= 2);
    expect(seen.status).toBe('PENDING');
    expect(new Decimal(seen.price).eq(10)).toBe(true);

    const again = await forkWithFiveMoreFirst(payer, sweep);
    expect(again.blockHash).not.toBe(first.blockHash);

    // The 10 never arrived: cancelled. The 15 that did is the invoice's one counting payment (not 25 in all).
    const settled = await waitForPayments(
      shop.test,
      invoiceId,
      (p) => p.length === 2 && p.some((x) => x.status === 'CANCELLED') && p.some((x) => new Decimal(x.price).eq(15)),
      20_000,
    );
    expect(settled.find((p) => p.id === seen.id)?.status).toBe('CANCELLED');
    expect(settled.find((p) => p.id !== seen.id)?.idempotency_key).toBe(`ethereum:${hash}:${again.logs[0].logIndex}`);
    await chain.mineEach(12);
    const done = await waitForPayments(shop.test, invoiceId, (p) => p.some((x) => x.status === 'COMPLETED'));
    await new Promise((r) => setTimeout(r, 600));
    expect((await paymentsOf(shop.test, invoiceId)).map((p) => [new Decimal(p.price).toString(), p.status]).sort()).toEqual([
      ['10', 'CANCELLED'],
      ['15', 'COMPLETED'],
    ]);
    expect(done).toHaveLength(2);
    // 15 of 20: the invoice is still waiting for the rest.
    expect((await shortState(shop.test, invoiceId)).status).toBe('PARTIALLY_PAID');
    expect(linesWith(service.server, '"event":"chain_transfer_changed"').some((l) => l.includes(seen.id))).toBe(true);
  });
  it('records what a transaction run again pays an address no longer watched, and cancels the payment of what it paid before', async () => {
    const { chain } = setup;
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '20', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId);
    const payer = 13;
    const sweep = await sweepTen(payer, pay.address);
    const { hash } = sweep;
    await chain.mineEach(1);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].confirmations >= 2);
    // The address's window closed hours ago: a rescan no longer looks at it.
    await withClient(databaseOf(service), (c) =>
      c.query(`UPDATE deposit_addresses SET watch_until = now() - interval '3 hours' WHERE invoice_id = $1`, [invoiceId]),
    );

    const again = await forkWithFiveMoreFirst(payer, sweep);

    // The 10 is cancelled; the 15 that arrived is recorded all the same, under the transaction's new log index.
    const settled = await waitForPayments(shop.test, invoiceId, (p) => p.length === 2, 20_000);
    expect(settled.find((p) => p.id === seen.id)?.status).toBe('CANCELLED');
    const arrived = settled.find((p) => p.id !== seen.id);
    expect(new Decimal(arrived.price).eq(15)).toBe(true);
    expect(arrived.idempotency_key).toBe(`ethereum:${hash}:${again.logs[0].logIndex}`);
    await chain.mineEach(12);
    await waitForPayments(shop.test, invoiceId, (p) => p.some((x) => x.id === arrived.id && x.status === 'COMPLETED'));
    await new Promise((r) => setTimeout(r, 600));
    expect((await paymentsOf(shop.test, invoiceId)).map((p) => [new Decimal(p.price).toString(), p.status]).sort()).toEqual([
      ['10', 'CANCELLED'],
      ['15', 'COMPLETED'],
    ]);
  });

  it('cancels the open refunds a reversed payment no longer covers, newest first, and leaves the covered one', async () => {
    const { chain, usdt } = setup;
    const { shop, invoiceId, pay } = await invoiceAtTwoConfirmations();
    // 10 that stays, then 10 that a reorg takes back after both completed.
    await chain.receipt(await chain.sendToken(usdt, 1, pay.address, units('10', 6)));
    await chain.mineEach(2);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED');
    const snapshot = await chain.test.snapshot();
    await chain.receipt(await chain.sendToken(usdt, 2, pay.address, units('10', 6)));
    await chain.mineEach(2);
    const paid = await waitForPayments(shop.test, invoiceId, (p) => p.length === 2 && p.every((x) => x.status === 'COMPLETED'));
    const older = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '8' }), 201);
    const newer = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '5' }), 201);
    expect([older.status, newer.status]).toEqual(['AWAITING_DESTINATION', 'AWAITING_DESTINATION']);

    // A longer fork without the second payment: 10 paid, 13 promised. The newer refund goes; 8 stays covered.
    await chain.test.revert({ id: snapshot });
    await chain.mineEach(5);
    const reversed = paid[1];
    await waitForPayments(shop.test, invoiceId, (p) => p.some((x) => x.id === reversed.id && x.status === 'CANCELLED'));
    await eventually(async () => expect(expectSuccess(await shop.test.get(`/refunds/${newer.id}`)).status).toBe('CANCELED'));
    expect(expectSuccess(await shop.test.get(`/refunds/${older.id}`)).status).toBe('AWAITING_DESTINATION');
    const events = (await eventsOf(shop.test)).filter((e) => e.type.startsWith('refund.') && e.type !== 'refund.created' && e.data.object.id === newer.id);
    expect(events.map((e) => [e.type, e.data.object.status])).toEqual([['refund.canceled', 'CANCELED']]);
    expect(linesWith(service.server, '"event":"refunds_canceled_payment_reversed"').some((l) => l.includes(newer.id))).toBe(true);
    // What is left to refund: 10 paid less the 8 still promised.
    expectError(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '2.01' }), 400, { code: 'refund_exceeds_paid' });
    expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '2' }), 201);
  });

  it('cancels a refund SENT when its payment was taken back once its payout is taken back too, when the rest no longer covers it', async () => {
    const { chain, usdt } = setup;
    const { shop, invoiceId, pay } = await invoiceAtTwoConfirmations();
    /** A refund of `amount` claimed to `address`, its payout sent from account 1 and reported: SENT. */
    const refundSent = async (amount: string, address: string) => {
      const refund = expectSuccess(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount }), 201);
      const token = new URL(refund.claim_url, 'http://x').pathname.split('/').pop();
      const claimed = expectSuccess(
        await new Api(null, service.server.baseUrl).post(`/refund_claims/${token}`, { provider_id: 'prov_ethereum_usdt', address }),
      );
      const tx = await chain.sendToken(usdt, 1, address, units(claimed.payout.amount, 6));
      await chain.receipt(tx);
      expect(expectSuccess(await shop.test.post(`/refunds/${refund.id}/sent`, { tx_hash: tx })).status).toBe('SENT');
      return refund.id as string;
    };
    // 10 that stays, and the 8 refunded and paid out of it: its payout stays on the chain.
    await chain.receipt(await chain.sendToken(usdt, 1, pay.address, units('10', 6)));
    await chain.mineEach(2);
    await waitForPayments(shop.test, invoiceId, (p) => p.length === 1 && p[0].status === 'COMPLETED');
    const older = await refundSent('8', chain.account(16).address);
    const snapshot = await chain.test.snapshot();
    // Then 10 more, and the 5 refunded and paid out: both on the blocks a reorg takes back.
    await chain.receipt(await chain.sendToken(usdt, 2, pay.address, units('10', 6)));
    await chain.mineEach(2);
    const paid = await waitForPayments(shop.test, invoiceId, (p) => p.length === 2 && p.every((x) => x.status === 'COMPLETED'));
    const newer = await refundSent('5', chain.account(17).address);

    // A longer fork without the second payment and the 5's payout: 10 paid, 13 sent. Sent refunds are the chain's
    // to decide: nothing is canceled, the excess logged.
    await chain.test.revert({ id: snapshot });
    await chain.mineEach(5);
    await waitForPayments(shop.test, invoiceId, (p) => p.some((x) => x.id === paid[1].id && x.status === 'CANCELLED'));
    await eventually(async () =>
      expect(linesWith(service.server, '"event":"refunds_exceed_paid_after_reversal"').some((l) => l.includes(invoiceId))).toBe(true),
    );
    // Its payout gone, the 5 is taken back after the grace: open again, uncovered by the 10 the 8 holds, canceled.
    await eventually(async () => expect(expectSuccess(await shop.test.get(`/refunds/${newer}`)).status).toBe('CANCELED'), 20_000);
    const moves = (await eventsOf(shop.test))
      .filter((e) => e.type.startsWith('refund.') && e.type !== 'refund.created' && e.data.object.id === newer)
      .map((e) => [e.type, e.data.object.status]);
    expect(moves.slice(-2)).toEqual([
      ['refund.updated', 'AWAITING_PAYOUT'],
      ['refund.canceled', 'CANCELED'],
    ]);
    expect(['SENT', 'COMPLETED']).toContain(expectSuccess(await shop.test.get(`/refunds/${older}`)).status);
    // What is left to refund: 10 paid less the 8 sent.
    expectError(await shop.test.post(`/invoices/${invoiceId}/refunds`, { amount: '2.01' }), 400, { code: 'refund_exceeds_paid' });
  });

  it('holds open the window of an invoice past it when a reorg takes its payment off, so the transaction mined again still pays it', async () => {
    const { chain, usdt } = setup;
    const shop = await merchant(service);
    const invoiceId = await createInvoice(shop.test, '8', 'USDT');
    const pay = await paymentAddress(shop.test, invoiceId);
    const raw = await chain.signTokenTransfer(usdt, 5, pay.address, units('8', 6));
    const snapshot = await chain.test.snapshot();
    const hash = await chain.sendRaw(raw);
    await chain.receipt(hash);
    const [seen] = await waitForPayments(shop.test, invoiceId, (p) => p.length === 1);
    expect(seen.status).toBe('PENDING');
    expect((await shortState(shop.test, invoiceId)).status).toBe('WAITING_FOR_CONFIRMATIONS');
    // The payment waits for confirmations while the invoice's monitoring window (24 hours) closes.
    const database = databaseOf(service);
    await withClient(database, (c) => c.query(`UPDATE invoices SET expires_at = now() - interval '25 hours' WHERE id = $1`, [invoiceId]));
    const watchUntil = async () =>
      withClient(
        database,
        async (c) => (await c.query(`SELECT watch_until FROM deposit_addresses WHERE invoice_id = $1`, [invoiceId])).rows[0].watch_until as Date,
      );

    // The block is replaced by a longer fork without the transaction: the payment is cancelled, and the invoice
    // falls back to PENDING, expired but not voided: its window is held for another monitoring window.
    await chain.test.revert({ id: snapshot });
    await chain.mineEach(3);
    await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'CANCELLED');
    const held = expectSuccess(await shop.test.post(`/invoices/${invoiceId}`, {}));
    expect(held).toMatchObject({ status: 'PENDING', substatus: 'EXPIRED' });
    // Another window from the cancellation, capped at one window past the invoice's own: 48 hours after expiry.
    const at = (t: string) => new Date(`${t.replace(' ', 'T')}Z`).getTime();
    expect(at(held.monitoring_until) - at(held.expires_at)).toBe(48 * 3600_000);
    expect(at(held.monitoring_until)).toBeGreaterThan(Date.now() + 22 * 3600_000);
    // The fall-back's invoice.updated says the window moved.
    const fellBack = (await eventsOf(shop.test)).find(
      (e) => e.type === 'invoice.updated' && e.data.object.id === invoiceId && e.data.previous_attributes?.status === 'WAITING_FOR_CONFIRMATIONS',
    );
    expect(fellBack!.data.previous_attributes).toHaveProperty('monitoring_until');
    const listed = async (status: string) =>
      (expectSuccess(await shop.test.post('/invoices/list', { status: [status] })).items as Array<{ id: string }>).map((i) => i.id);
    expect(await listed('PENDING')).toContain(invoiceId);
    expect(await listed('VOIDED')).not.toContain(invoiceId);
    // The sweeper (every 5 seconds) passes it by too: stored PENDING.
    await new Promise((r) => setTimeout(r, 6_000));
    const stored = await withClient(database, async (c) => (await c.query(`SELECT status FROM invoices WHERE id = $1`, [invoiceId])).rows[0]);
    expect(stored.status).toBe('PENDING');
    // Its address handed out again during the hold (say it was one the reorg's network did not re-watch) is
    // watched as long as the window is held open.
    await withClient(database, (c) => c.query(`UPDATE deposit_addresses SET watch_until = now() - interval '1 minute' WHERE invoice_id = $1`, [invoiceId]));
    expect((await paymentAddress(shop.test, invoiceId)).address).toBe(pay.address);
    // (monitoring_until is shown to the second.)
    expect(Math.abs((await watchUntil()).getTime() - at(held.monitoring_until))).toBeLessThan(1_000);

    // The same transaction is mined again: its payment is reinstated and completes the invoice.
    expect(await chain.sendRaw(raw)).toBe(hash);
    await chain.receipt(hash);
    const [back] = await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'PENDING');
    expect(back.id).toBe(seen.id);
    expect((await shortState(shop.test, invoiceId)).status).toBe('WAITING_FOR_CONFIRMATIONS');
    await chain.mineEach(11);
    await waitForPayments(shop.test, invoiceId, (p) => p[0].status === 'COMPLETED');
    expect(await shortState(shop.test, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: 'PAID_LATE' });
  });
});
