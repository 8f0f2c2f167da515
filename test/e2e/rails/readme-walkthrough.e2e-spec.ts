import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { LocalChain } from '../../chain/local-chain';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { ROOT } from '../../support/server';
import { WebhookReceiver } from '../../support/webhook-receiver';
import { createInvoice, r30, shortState } from '../payments/payments-helpers';
import { waitForPayments } from './chain-helpers';
import { HARDHAT_ACCOUNTS, writeChainsFile, XPUB_0 } from './rails-helpers';

const exec = promisify(execFile);
const SCRIPT = join(ROOT, 'scripts', 'local-chain.js');

/** The README walkthrough, step by step, as a merchant runs it: live mode on a local chain. */
describe('README walkthrough: a live USDT payment on a local chain', () => {
  let chain: LocalChain;
  let service: IsolatedService;
  let receiver: WebhookReceiver;
  afterAll(async () => {
    await receiver?.stop();
    await service?.stop();
    await chain?.stop();
  });

  it('registers the xpub, creates a live invoice, gets its address, is paid in USDT and completes with signed webhooks', async () => {
    // 1. A local chain (npx hardhat node --config test/chain/hardhat.config.js) and the test USDT on it.
    chain = await LocalChain.start();
    const usdt = (await exec(process.execPath, [SCRIPT, 'deploy', chain.rpcUrl])).stdout.trim();
    expect(usdt).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // 2. CHAINS_FILE with a live section pointing at it.
    const chainsFile = writeChainsFile({ live: { ethereum: { rpc_url: chain.rpcUrl, chain_id: 31337, tokens: { usdt }, poll_interval_ms: 200 } } });
    service = await startIsolatedService({ CHAINS_FILE: chainsFile, WEBHOOK_DISPATCH_INTERVAL_MS: '100' });
    const org = await service.createOrg('Walkthrough shop');
    // 3. The merchant's wallet xpub (here the test mnemonic's account 0; use your wallet's own).
    const wallet = expectSuccess(await org.live.post('/wallets', { chain_family: 'evm', xpub: XPUB_0 }), 201);
    expect(wallet.first_address).toBe(HARDHAT_ACCOUNTS[0]);
    receiver = await WebhookReceiver.start();
    const endpoint = expectSuccess(await org.live.post('/webhooks', { url: receiver.url('/shop'), event_types: ['payment.created', 'payment.updated', 'invoice.completed'] }), 201);
    // 4. A live invoice and its deposit address.
    const invoiceId = await createInvoice(org.live, '25', 'USDT');
    const pay = expectSuccess(await org.live.post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_ethereum_usdt' }));
    expect(pay).toMatchObject({ address: HARDHAT_ACCOUNTS[0], amount: r30('25'), chain_id: 31337 });
    expect(pay.uri).toBe(`ethereum:${pay.contract_address}@31337/transfer?address=${pay.address}&uint256=25000000`);
    // 5. The payer sends the USDT; 11 more blocks make 12 confirmations.
    await exec(process.execPath, [SCRIPT, 'send', usdt, pay.address, '25', chain.rpcUrl]);
    await waitForPayments(org.live, invoiceId, (p) => p.length === 1 && p[0].status === 'PENDING');
    await exec(process.execPath, [SCRIPT, 'mine', '11', chain.rpcUrl]);
    // 6. COMPLETED, with signed webhooks.
    const [payment] = await waitForPayments(org.live, invoiceId, (p) => p[0].status === 'COMPLETED');
    expect(payment).toMatchObject({ price: r30('25'), confirmations: 12, provider_id: 'prov_ethereum_usdt' });
    expect(await shortState(org.live, invoiceId)).toMatchObject({ status: 'COMPLETED', substatus: null });
    const hooks = await receiver.waitFor((all) => all.some((w) => w.json.type === 'invoice.completed'));
    expect(hooks.map((w) => w.json.type)).toEqual(expect.arrayContaining(['payment.created', 'payment.updated', 'invoice.completed']));
    for (const hook of hooks) expect(() => new Webhook(endpoint.secret).verify(hook.body, hook.headers as Record<string, string>)).not.toThrow();
  });
});
