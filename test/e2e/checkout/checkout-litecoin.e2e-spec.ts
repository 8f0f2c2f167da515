import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { LitecoinNode } from '../../chain/litecoin-node';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { paymentAddress } from '../rails/chain-helpers';
import { writeChainsFile } from '../rails/rails-helpers';
import { Browser, decodeQr, launchBrowser, openPage, see, seriousViolations } from './browser';

/**
 * The checkout page on the UTXO rail: a Litecoin Core node in regtest, the watcher, and a merchant with
 * a Litecoin wallet. The payer's page shows the rltc1 deposit address, a QR code that decodes to the
 * BIP21 URI and the wallet link; a payment from litecoind is seen from the mempool and completes the
 * invoice on the page as blocks arrive.
 */
describe('hosted checkout page with a Litecoin address (regtest)', () => {
  let node: LitecoinNode;
  let service: IsolatedService;
  let browser: Browser;

  beforeAll(async () => {
    node = await LitecoinNode.start();
    const chainsFile = writeChainsFile({ test: { litecoin: { rpc_url: node.rpcUrl, chain: 'regtest', poll_interval_ms: 200, confirmations: 20 } } });
    service = await startIsolatedService({ CHAINS_FILE: chainsFile, CHAIN_LOCK_RETRY_MS: '300' });
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await node?.stop();
  });

  it('shows the address, a QR code of the BIP21 URI and the wallet link; a payment from litecoind completes the invoice', async () => {
    const org = await service.createOrg();
    const vpub = HDKey.fromMasterSeed(randomBytes(32), { public: 0x045f1cf6, private: 0x045f18bc }).derive("m/84'/1'/0'").publicExtendedKey;
    expectSuccess(await org.test.post('/wallets', { chain_family: 'utxo', network: 'litecoin', xpub: vpub }), 201);
    const invoiceId = expectSuccess<{ id: string }>(
      await org.test.post('/invoices/create', {
        items: [{ type: 'PAYMENT_INTENT', currency: 'LITECOIN', price: '0.75' }],
        redirect_url: `${service.server.baseUrl}/health`,
      }),
      201,
    ).id;
    const { page, problems } = await openPage(browser, `${service.server.baseUrl}/checkout/${invoiceId}?poll_ms=300&redirect_ms=60000`);
    await see(page.locator('#status')).toHaveAttribute('data-state', 'waiting');

    await page.locator('[data-provider-id="prov_litecoin_litecoin"]').click();
    await see(page.locator('#pay-address')).toBeVisible();
    const pay = await paymentAddress(org.test, invoiceId, 'prov_litecoin_litecoin');
    expect(pay.address).toMatch(/^rltc1q/);
    await see(page.locator('#pay-address')).toHaveText(pay.address);
    await see(page.locator('#pay-amount')).toHaveText('0.75 LTC');
    expect(pay.uri).toBe(`litecoin:${pay.address}?amount=0.75`);
    expect(await page.locator('#open-wallet').getAttribute('href')).toBe(pay.uri);
    expect(await decodeQr(browser, page, '.qr')).toBe(pay.uri);
    expect(await seriousViolations(page)).toEqual([]);

    await node.send(pay.address, '0.75');
    await see(page.locator('#status'), 30_000).toHaveAttribute('data-state', 'seen');
    await node.mine(6);
    await see(page.locator('#status'), 30_000).toHaveAttribute('data-state', 'paid');
    expect(problems.errors).toEqual([]);
    await page.close();
  });
});
