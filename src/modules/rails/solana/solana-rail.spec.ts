import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { type Address, getBase58Decoder } from '@solana/kit';
import { ChainsConfigError, networkOf, parseChainsConfig as parse } from '../domain/chains-config';
import { checkSolanaPayoutAddress, isWalletAddress, walletAddressProblem } from './solana-address';
import { joinPaymentKey, newReference, SolanaKeys, splitPaymentKey } from './solana-keys';
import { transferRequestUri, unitsToAmount } from './solana-pay';
import { checkSolanaSignature, SOLANA_MAINNET_GENESIS, solanaRail, type SolanaNetworkConfig } from './solana-rail';

// Vectors of the Solana Pay specification's examples (recipient, USDC mint, reference) and of the JSON-RPC
// documentation's getTransaction example (a signature).
const MVINES = 'mvines9iiHiQTysrwkJjGf2gb9Ex9jXJX8ns3qwf2kN';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const REFERENCE = '82ZJ7nbGpixjeDCmEhUcmwXYfvurzAgGdtSMuHnUgyny';
const SIGNATURE = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';
const CATALOG = [
  { network: 'SOLANA', gateway: 'SOLANA', kind: 'native', contractAddress: '' },
  { network: 'SOLANA', gateway: 'USDC', kind: 'token', contractAddress: USDC },
  { network: 'SOLANA', gateway: 'USDT', kind: 'token', contractAddress: USDT },
  { network: 'TRON', gateway: 'USDT', kind: 'token', contractAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
];
const SOLANA = solanaRail(CATALOG);
const TEST_GENESIS = 'GH7ome3EiwEr7tu9JuTh2dpYWBJK3z69Xm1ZE3MEE6JC';
const parseChainsConfig = (raw: unknown, env: Record<string, string> = {}) => parse(raw, [SOLANA], env);
const fail = (raw: unknown) => {
  try {
    parseChainsConfig(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(ChainsConfigError);
    return (e as Error).message;
  }
  throw new Error('expected the configuration to be refused');
};
const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);
const base58 = (b: Uint8Array) => getBase58Decoder().decode(b);

describe('Solana Pay transfer requests', () => {
  it("writes the specification's examples", () => {
    expect(transferRequestUri({ recipient: MVINES, amount: '0.01', splToken: USDC })).toBe(`solana:${MVINES}?amount=0.01&spl-token=${USDC}`);
    expect(transferRequestUri({ recipient: MVINES, amount: '1', splToken: null, label: 'Michael', message: 'Thanks for all the fish' })).toBe(
      `solana:${MVINES}?amount=1&label=Michael&message=Thanks%20for%20all%20the%20fish`,
    );
    expect(
      transferRequestUri({
        recipient: MVINES,
        amount: '0.010000',
        splToken: null,
        references: [REFERENCE],
        label: 'Michael',
        message: 'Thanks for all the fish',
      }),
    ).toBe(`solana:${MVINES}?amount=0.01&reference=${REFERENCE}&label=Michael&message=Thanks%20for%20all%20the%20fish`);
  });

  it.each([
    [1n, 9, '0.000000001'],
    [1_500_000_000n, 9, '1.5'],
    [25_494_902n, 6, '25.494902'],
    [0n, 6, '0'],
    [10_000_000n, 6, '10'],
  ])('writes %s units at %s decimals as %s (no exponent, a leading 0, no trailing zeros)', (units, decimals, amount) => {
    expect(unitsToAmount(units, decimals)).toBe(amount);
  });

  it("encodes the label and message as UTF-8 and keeps the spec's parameter order", () => {
    expect(transferRequestUri({ recipient: MVINES, amount: '2', splToken: USDT, references: [REFERENCE], label: 'Café & Co', message: 'Invoice #7' })).toBe(
      `solana:${MVINES}?amount=2&spl-token=${USDT}&reference=${REFERENCE}&label=Caf%C3%A9%20%26%20Co&message=Invoice%20%237`,
    );
  });
});

describe('Solana wallet addresses and keys', () => {
  it('takes an on-curve wallet address and refuses off-curve, malformed and secret-key texts', async () => {
    const [ata] = await findAssociatedTokenPda({ owner: MVINES as Address, mint: USDC as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    expect(isWalletAddress(MVINES)).toBe(true);
    expect(isWalletAddress(ata)).toBe(false);
    expect(walletAddressProblem(ata)).toMatch(/off the ed25519 curve/);
    expect(walletAddressProblem(`${MVINES}0`)).toMatch(/outside base58/);
    expect(walletAddressProblem(MVINES.slice(0, 30))).toMatch(/32 bytes/);
    expect(walletAddressProblem(base58(bytes(64, 7)))).toMatch(/private key/);
    expect(walletAddressProblem('abandon ability able about above absent absorb abstract absurd abuse access accident')).toMatch(/recovery phrase/);
    expect(walletAddressProblem('')).toBe('must not be empty');
  });

  it('registers the address as the key: first address itself, a fingerprint that ignores blanks', () => {
    const keys = new SolanaKeys();
    const check = keys.checkAccountKey(`  ${MVINES}\n`);
    expect(check).toEqual({ ok: true, key: { text: MVINES, firstAddress: MVINES, fingerprint: keys.fingerprint(MVINES) } });
    expect(keys.fingerprint(MVINES)).toMatch(/^[0-9a-f]{64}$/);
    expect(keys.fingerprint(MVINES)).not.toBe(keys.fingerprint(USDC));
    expect(keys.checkAccountKey(base58(bytes(64, 1)))).toEqual({ ok: false, problem: expect.stringMatching(/private key/) });
  });

  it('hands out a fresh reference per payment address, shown as the wallet with its reference apart', () => {
    const keys = new SolanaKeys();
    const a = keys.deriveAddress(MVINES);
    const b = keys.deriveAddress(MVINES);
    expect(a).not.toBe(b);
    expect(keys.displayAddress(a)).toBe(MVINES);
    expect(splitPaymentKey(a)).toEqual({ wallet: MVINES, reference: keys.referenceOf(a) });
    expect(newReference(() => bytes(32, 0))).toBe('11111111111111111111111111111111');
    expect(joinPaymentKey(MVINES, REFERENCE)).toBe(`${MVINES}/${REFERENCE}`);
    expect(splitPaymentKey(MVINES)).toBeNull();
  });

  it("writes a deposit's URI: the wallet, the amount at the asset's decimals, the mint and the payment's reference", () => {
    const keys = new SolanaKeys();
    const address = joinPaymentKey(MVINES, REFERENCE);
    expect(keys.paymentUri({ address, chain: TEST_GENESIS, units: 1_250_000_000n, asset: null })).toBe(`solana:${MVINES}?amount=1.25&reference=${REFERENCE}`);
    expect(keys.paymentUri({ address, chain: TEST_GENESIS, units: 10_000n, asset: USDC, decimals: 6, label: 'Acme', message: 'Invoice invoice_1' })).toBe(
      `solana:${MVINES}?amount=0.01&spl-token=${USDC}&reference=${REFERENCE}&label=Acme&message=Invoice%20invoice_1`,
    );
  });
});

describe("the Solana rail's CHAINS_FILE section", () => {
  it("fills the defaults: mainnet-beta's genesis hash and the catalog's mints live, finalized commitment; test tokens only those named", () => {
    const config = parseChainsConfig(
      {
        live: { solana: { rpc_url: 'https://solana.example.com/?api-key=${SOLANA_KEY}' } },
        test: { solana: { rpc_url: 'http://127.0.0.1:8899', genesis_hash: TEST_GENESIS, commitment: 'confirmed', tokens: { usdc: REFERENCE } } },
      },
      { SOLANA_KEY: 'secret' },
    );
    const live = networkOf(config, 'live', 'solana') as SolanaNetworkConfig;
    expect(live).toMatchObject({ family: 'solana', chain: SOLANA_MAINNET_GENESIS, chainField: 'genesis_hash', commitment: 'finalized', finalityDepth: 32 });
    expect(live.rpcUrl).toBe('https://solana.example.com/?api-key=secret');
    expect(live.assets).toEqual({ usdc: USDC, usdt: USDT });
    expect(live.providers).toEqual(['prov_solana_solana', 'prov_solana_usdc', 'prov_solana_usdt']);
    const test = networkOf(config, 'test', 'solana') as SolanaNetworkConfig;
    expect(test).toMatchObject({ chain: TEST_GENESIS, commitment: 'confirmed' });
    expect(test.assets).toEqual({ usdc: REFERENCE });
    expect(test.providers).toEqual(['prov_solana_solana', 'prov_solana_usdc']);
  });

  it('refuses what a Solana node or mint cannot be, naming each field', () => {
    const message = fail({
      test: { solana: { rpc_url: 'ftp://x', commitment: 'processed', tokens: { usdc: '0xdAC17F958D2ee523a2206206994597C13D831ec7', dai: USDC }, chain_id: 1 } },
    });
    expect(message).toContain('test.solana.chain_id: unknown field');
    expect(message).toContain('test.solana.rpc_url: must be an http(s)');
    expect(message).toContain("test.solana.genesis_hash: must be the cluster's genesis hash");
    expect(message).toContain('test.solana.commitment: must be "finalized" or "confirmed"');
    expect(message).toContain('test.solana.tokens.usdc: must be a base58 mint address');
    expect(message).toContain('test.solana.tokens.dai: unknown token on solana (expected usdc, usdt)');
  });

  it('refuses one cluster in both modes', () => {
    expect(fail({ live: { solana: { rpc_url: 'http://a' } }, test: { solana: { rpc_url: 'http://b', genesis_hash: SOLANA_MAINNET_GENESIS } } })).toContain(
      'live.solana.genesis_hash',
    );
  });

  it("routes the catalog's Solana providers", () => {
    expect(SOLANA.routeOf('prov_solana_solana')).toEqual({ network: 'solana', asset: null });
    expect(SOLANA.routeOf('PROVIDER_SOLANA_USDC')).toEqual({ network: 'solana', asset: 'usdc' });
    expect(SOLANA.routeOf('prov_solana_usdt')).toEqual({ network: 'solana', asset: 'usdt' });
    expect(SOLANA.routeOf('prov_tron_usdt')).toBeNull();
  });
});

describe('refunds to Solana', () => {
  it('checks a payout address: an on-curve wallet, trimmed; token accounts and other text refused', async () => {
    const [ata] = await findAssociatedTokenPda({ owner: MVINES as Address, mint: USDC as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    expect(SOLANA.checkPayoutAddress('solana', 'live', ` ${MVINES} `)).toEqual({ ok: true, address: MVINES });
    expect(checkSolanaPayoutAddress('solana', 'test', MVINES)).toEqual({ ok: true, address: MVINES });
    expect(SOLANA.checkPayoutAddress('solana', 'live', ata)).toEqual({ ok: false, problem: expect.stringMatching(/wallet's own address/) });
    // Once checked by an address-only rule (before the rail): the wrapped SOL mint, a short key, a 0, nothing.
    expect(SOLANA.checkPayoutAddress('solana', 'test', ' So11111111111111111111111111111111111111112 ')).toEqual({
      ok: true,
      address: 'So11111111111111111111111111111111111111112',
    });
    expect(SOLANA.checkPayoutAddress('solana', 'test', 'So1111111111111111111111111111111')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/32 bytes/),
    });
    expect(SOLANA.checkPayoutAddress('solana', 'test', 'So0111111111111111111111111111111111111111112')).toMatchObject({ ok: false });
    expect(SOLANA.checkPayoutAddress('solana', 'test', ' ')).toEqual({ ok: false, problem: 'must not be empty' });
    expect(SOLANA.checkPayoutAddress('solana', 'live', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8')).toEqual({
      ok: false,
      problem: expect.stringMatching(/outside base58/),
    });
  });

  it('writes the payout request to the destination wallet (SPL by its mint); a plain URI without a rail', () => {
    expect(SOLANA.payoutUri({ network: 'solana', chain: TEST_GENESIS, address: MVINES, units: 10_000n, amount: '0.010000', asset: USDC })).toBe(
      `solana:${MVINES}?amount=0.01&spl-token=${USDC}`,
    );
    expect(SOLANA.payoutUri({ network: 'solana', chain: TEST_GENESIS, address: MVINES, units: 1n, amount: '0.000000001', asset: null })).toBe(
      `solana:${MVINES}?amount=0.000000001`,
    );
    expect(SOLANA.payoutUri({ network: 'solana', chain: null, address: MVINES, units: 1n, amount: '1.50', asset: null })).toBe(`solana:${MVINES}?amount=1.5`);
  });

  it('checks a transaction signature: base58 of 64 bytes, kept as written', () => {
    expect(checkSolanaSignature(SIGNATURE)).toEqual({ ok: true, id: SIGNATURE });
    expect(SOLANA.checkTransactionId(` ${SIGNATURE}`)).toEqual({ ok: true, id: SIGNATURE });
    expect(SOLANA.checkTransactionId(SIGNATURE.toLowerCase())).toMatchObject({ ok: false });
    expect(SOLANA.checkTransactionId(`0x${'ab'.repeat(32)}`)).toEqual({ ok: false, problem: expect.stringMatching(/base58 of 64 bytes/) });
    expect(SOLANA.checkTransactionId(MVINES)).toMatchObject({ ok: false });
  });
});
