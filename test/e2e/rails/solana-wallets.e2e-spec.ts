import { randomBytes } from 'node:crypto';
import { generateKeyPairSigner, getBase58Decoder, type Address } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { createInvoice } from '../payments/payments-helpers';
import { freshAccount, writeChainsFile } from './rails-helpers';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const freshWallet = async () => (await generateKeyPairSigner()).address;

interface Listed {
  id: string;
}

describe('Solana wallets and the providers they make payable (decisions §15, §17, §24)', () => {
  let service: IsolatedService;
  const payer = () => new Api(null, service.server.baseUrl);
  const listed = async (invoiceId: string): Promise<string[]> =>
    expectSuccess<{ providers: Listed[] }>(await payer().get(`/providers/${invoiceId}`))
      .providers.map((p) => p.id)
      .sort();

  beforeAll(async () => {
    // A live mainnet-beta section (nothing answers there: listing needs no node).
    service = await startIsolatedService({ CHAINS_FILE: writeChainsFile({ live: { solana: { rpc_url: 'http://127.0.0.1:9' } } }) });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
  });

  it('registers a wallet by its address: first_address is the address; GET and the list show it', async () => {
    const org = await service.createOrg();
    const address = await freshWallet();
    const wallet = expectSuccess(await org.test.post('/wallets', { chain_family: 'solana', address: ` ${address} ` }), 201);
    expect(wallet).toMatchObject({ chain_family: 'solana', network: null, first_address: address, active: true });
    expect(expectSuccess(await org.test.get(`/wallets/${wallet.id}`))).toMatchObject({ id: wallet.id, first_address: address });
    expect(expectSuccess(await org.test.get('/wallets')).items.map((w: { id: string }) => w.id)).toEqual([wallet.id]);
  });

  it.each([
    [
      'a token account (off the curve)',
      async () => (await findAssociatedTokenPda({ owner: await freshWallet(), mint: USDC as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0],
      'address',
    ],
    ['a secret key (64 bytes)', () => Promise.resolve(getBase58Decoder().decode(new Uint8Array(randomBytes(64)))), 'private key'],
    ['an EVM address', () => Promise.resolve('0x70997970C51812dc3A010C7d01b50e0d17dc79C8'), 'base58'],
    ['a recovery phrase', () => Promise.resolve('abandon '.repeat(11) + 'about'), 'recovery phrase'],
  ])('refuses %s with 400 invalid_address on address, storing nothing', async (_, text, says) => {
    const org = await service.createOrg();
    const sent = await text();
    const res = await org.test.post('/wallets', { chain_family: 'solana', address: sent });
    const body = expectError(res, 400, { field: 'address' });
    expect(body.code).toBe('invalid_address');
    expect(body.validator.address).toContain(says);
    expect(res.text).not.toContain(sent);
    expect(expectSuccess(await org.test.get('/wallets')).items).toEqual([]);
  });

  it('refuses an address another organization registered, without saying whose', async () => {
    const address = await freshWallet();
    const a = await service.createOrg('Solana shop A');
    const b = await service.createOrg('Solana shop B');
    expectSuccess(await a.test.post('/wallets', { chain_family: 'solana', address }), 201);
    const res = await b.test.post('/wallets', { chain_family: 'solana', address });
    expectError(res, 400, { field: 'address' });
    expect(res.text).not.toContain(a.id);
    expect(res.text).not.toContain('Solana shop A');
  });

  it('lists SOL, USDC and USDT on Solana live only once the organization has a live Solana wallet; each gives the wallet, a reference and a Solana Pay uri', async () => {
    const org = await service.createOrg();
    const invoiceId = await createInvoice(org.live, '25.5');
    expect(await listed(invoiceId)).toEqual([]);
    expectSuccess(await org.live.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
    expect(await listed(invoiceId)).toEqual([]);
    const address = await freshWallet();
    expectSuccess(await org.live.post('/wallets', { chain_family: 'solana', address }), 201);
    expect(await listed(invoiceId)).toEqual(['prov_solana_solana', 'prov_solana_usdc', 'prov_solana_usdt']);
    const usdc = expectSuccess(await payer().post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_solana_usdc' }));
    expect(usdc).toMatchObject({ provider_id: 'prov_solana_usdc', address, decimals: 6, contract_address: USDC, chain_id: null });
    expect(usdc.uri).toMatch(new RegExp(`^solana:${address}\\?amount=[0-9.]+&spl-token=${USDC}&reference=${usdc.reference}&message=Invoice%20${invoiceId}$`));
    const usdt = expectSuccess(await payer().post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_solana_usdt' }));
    expect(usdt).toMatchObject({ address, contract_address: USDT });
    expect(usdt.reference).not.toBe(usdc.reference);
    const sol = expectSuccess(await payer().post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_solana_solana' }));
    expect(sol).toMatchObject({ currency: 'SOLANA', decimals: 9, contract_address: null });
    expect(sol.uri).not.toContain('spl-token');
    // Test mode has no Solana section here: not configured.
    const testInvoice = await createInvoice(org.test, '10');
    expectSuccess(await org.test.post('/wallets', { chain_family: 'solana', address: await freshWallet() }), 201);
    expectError(await org.test.post(`/invoices/${testInvoice}/payment_address`, { provider_id: 'prov_solana_usdc' }), 400, { field: 'provider_id' });
  });
});
