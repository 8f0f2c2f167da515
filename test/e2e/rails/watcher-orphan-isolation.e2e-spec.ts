import type { Address } from 'viem';
import type { LocalChain } from '../../chain/local-chain';
import type { RpcRecorder } from '../../chain/rpc-recorder';
import { IsolatedService } from '../../support/isolated';
import { linesWith } from '../../support/server';
import { createInvoice } from '../payments/payments-helpers';
import { merchant, paymentAddress, paymentsOf, RecordedChain, startRecordedChain, units, waitForPayments } from './chain-helpers';

/**
 * After a reorg, the transfers it took away are settled one by one, each asking the node where its
 * transaction is now. A node that cannot answer about one of them (its receipt lost with the fork, a
 * call timing out) leaves that one in doubt for a later step; it must not stop the others, another
 * organization's among them, from being settled.
 */
describe('the chain watcher settling what a reorg took away while the node cannot answer about one transaction', () => {
  let setup: RecordedChain;
  let chain: LocalChain;
  let usdt: Address;
  let recorder: RpcRecorder;
  let service: IsolatedService;
  beforeAll(async () => {
    setup = await startRecordedChain();
    ({ chain, usdt, recorder, service } = setup);
  }, 120_000);
  afterAll(async () => setup?.stop());

  it("cancels another organization's payment while one transaction cannot be asked about, and that one once it can", async () => {
    const [first, second] = [await merchant(service), await merchant(service)];
    const [a, b] = [await createInvoice(first.test, '10', 'USDT'), await createInvoice(second.test, '10', 'USDT')];
    const [payA, payB] = [await paymentAddress(first.test, a), await paymentAddress(second.test, b)];
    const snapshot = await chain.test.snapshot();
    // The first organization's transfer in the earlier block: settled first.
    const hashA = await chain.sendToken(usdt, 1, payA.address, units('10', 6));
    await chain.receipt(hashA);
    await chain.receipt(await chain.sendToken(usdt, 2, payB.address, units('10', 6)));
    await waitForPayments(first.test, a, (p) => p.length === 1);
    await waitForPayments(second.test, b, (p) => p.length === 1);

    recorder.failing = (call) => call.method === 'eth_getTransactionReceipt' && String(call.params[0]).toLowerCase() === hashA.toLowerCase();
    // Replaced by a longer fork holding neither transaction.
    await chain.test.revert({ id: snapshot });
    await chain.mine(4);
    await waitForPayments(second.test, b, (p) => p[0].status === 'CANCELLED');
    expect((await paymentsOf(first.test, a))[0].status).toBe('PENDING');
    expect(linesWith(service.server, 'chain_orphan_check_failed').some((l) => l.includes(first.id))).toBe(true);

    recorder.failing = null;
    await waitForPayments(first.test, a, (p) => p[0].status === 'CANCELLED');
  });
});
