import type { Address } from 'viem';
import { hexToBigInt } from 'viem';
import { LocalChain } from '../../chain/local-chain';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { withClient } from '../../support/pg';
import { ADMIN_TOKEN, linesWith, RunningServer, startServer } from '../../support/server';
import { eventually } from '../../support/webhook-receiver';
import { createInvoice } from '../payments/payments-helpers';
import { paymentAddress, paymentsOf, sharedDatabase, units, waitForPayments } from './chain-helpers';
import { JsonRpcAnswer, JsonRpcRelay } from './json-rpc-relay';
import { freshAccount, writeChainsFile } from './rails-helpers';

const WATCHER_ENV = { CHAIN_LOCK_RETRY_MS: '300', WEBHOOK_DISPATCH_INTERVAL_MS: '100' };

async function shopOn(server: RunningServer) {
  const res = await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'Chain shop' }, { headers: { 'x-admin-token': ADMIN_TOKEN } });
  const test = new Api(res.body.data.test_key as string, server.baseUrl);
  expectSuccess(await test.post('/wallets', { chain_family: 'evm', xpub: freshAccount().xpub }), 201);
  return test;
}

/** The block the test-mode Ethereum watcher has read up to (-1 before its first step). */
async function testCursorOf(databaseUrl: string): Promise<bigint> {
  const rows = await withClient(databaseUrl, (c) => c.query(`SELECT block_number::text AS n FROM chain_cursors WHERE mode = 'test' AND network = 'ethereum'`));
  return BigInt((rows.rows[0]?.n as string | undefined) ?? -1);
}

async function metricsOf(server: RunningServer): Promise<string> {
  return (await fetch(`${server.baseUrl}/metrics`)).text();
}

describe('the chain watcher against a node that cannot be trusted', () => {
  let chain: LocalChain;
  let usdt: Address;
  beforeAll(async () => {
    chain = await LocalChain.start();
    usdt = await chain.deployToken('USDT');
  }, 120_000);
  afterAll(async () => {
    await chain?.stop();
  });

  const chainsFile = (rpcUrl: string, extra: Record<string, unknown> = {}) =>
    writeChainsFile({ test: { ethereum: { rpc_url: rpcUrl, chain_id: 31337, tokens: { usdt }, poll_interval_ms: 100, confirmations: 30, ...extra } } });

  it('counts only the configured token contracts, even from a node that ignores the address filter of eth_getLogs', async () => {
    // Another ERC-20 on the same chain, not configured: worthless as far as the service knows.
    const fake = await chain.deployToken('FAKE');
    let foreignAnswered = 0;
    const relay = new JsonRpcRelay(chain.rpcUrl, {
      request(call) {
        if (call.method !== 'eth_getLogs') return call;
        const [filter] = call.params as [Record<string, unknown>];
        const { address: _ignored, ...rest } = filter;
        return { ...call, params: [rest] };
      },
      answer(call, answer) {
        if (call.method === 'eth_getLogs')
          foreignAnswered += (answer.result as Array<{ address: string }>).filter((l) => l.address.toLowerCase() === fake.toLowerCase()).length;
        return answer;
      },
    });
    await relay.start();
    const db = await sharedDatabase();
    const server = await startServer({ databaseUrl: db.url, env: { ...WATCHER_ENV, CHAINS_FILE: chainsFile(relay.url) } });
    try {
      const shop = await shopOn(server);
      const invoiceId = await createInvoice(shop, '10', 'USDT');
      const pay = await paymentAddress(shop, invoiceId);
      await chain.receipt(await chain.sendToken(fake, 1, pay.address, units('1000000', 6)));
      // Then the configured token, in a later block: once it is recorded, the block before has been scanned.
      await chain.receipt(await chain.sendToken(usdt, 1, pay.address, units('10', 6)));
      const payments = await waitForPayments(shop, invoiceId, (p) => p.some((x) => x.provider_id === 'prov_ethereum_usdt'));
      expect(foreignAnswered).toBeGreaterThan(0); // the node did hand the foreign transfer to the service
      expect(payments.map((p) => p.provider_id)).toEqual(['prov_ethereum_usdt']);
      const [ignored] = linesWith(server, 'chain_foreign_transfers_ignored');
      expect(JSON.parse(ignored)).toMatchObject({ network: 'ethereum', mode: 'test', contracts: [fake.toLowerCase()] });
    } finally {
      await server.stop();
      await db.drop();
      await relay.stop();
    }
  }, 240_000);

  it('records nothing from a node on another chain than CHAINS_FILE names, says so, and hands out no address for it', async () => {
    const db = await sharedDatabase();
    // The watching instance's file says chain 1 (mainnet); its node is Hardhat (31337).
    const wrong = await startServer({
      databaseUrl: db.url,
      env: { ...WATCHER_ENV, CHAIN_ID_CHECK_SECONDS: '1', CHAINS_FILE: chainsFile(chain.rpcUrl, { chain_id: 1, start_block: 0 }) },
    });
    // An instance with the right file that does not watch hands out the address.
    const right = await startServer({
      databaseUrl: db.url,
      env: { ...WATCHER_ENV, CHAIN_WATCHER: 'false', CHAINS_FILE: chainsFile(chain.rpcUrl, { start_block: 0 }) },
    });
    let watching: RunningServer | null = null;
    try {
      const mismatches = () => linesWith(wrong, '"event":"chain_id_mismatch"');
      await eventually(async () => expect(mismatches().length).toBeGreaterThan(0));
      expect(JSON.parse(mismatches()[0])).toMatchObject({ level: 50, network: 'ethereum', mode: 'test', expected_chain: '1', actual_chain: '31337' });
      expect(await metricsOf(wrong)).toMatch(/^chain_id_mismatch\{network="ethereum",mode="test"\} 1$/m);
      await eventually(async () => expect(await metricsOf(right)).toMatch(/^chain_id_mismatch\{network="ethereum",mode="test"\} 0$/m));

      const shop = await shopOn(right);
      const invoiceId = await createInvoice(shop, '10', 'USDT');
      const onWrong = new Api(null, wrong.baseUrl);
      expectError(await onWrong.post(`/invoices/${invoiceId}/payment_address`, { provider_id: 'prov_ethereum_usdt' }), 400, {
        code: 'rail_unavailable',
        field: 'provider_id',
      });
      const pay = await paymentAddress(shop, invoiceId);
      await chain.receipt(await chain.sendToken(usdt, 1, pay.address, units('10', 6)));
      await chain.mine(2);
      // Two more checks after the transfer (a second apart): a watcher that ran would have recorded it by now.
      const seen = mismatches().length;
      await eventually(async () => expect(mismatches().length).toBeGreaterThanOrEqual(seen + 2), 20_000);
      expect(await paymentsOf(shop, invoiceId)).toEqual([]);
      const cursors = await withClient(db.url, (c) => c.query(`SELECT count(*)::int AS n FROM chain_cursors WHERE mode = 'test' AND network = 'ethereum'`));
      expect(cursors.rows[0].n).toBe(0);

      // The same node under the right chain id: watched, and the payment is recorded.
      await wrong.stop();
      watching = await startServer({ databaseUrl: db.url, env: { ...WATCHER_ENV, CHAINS_FILE: chainsFile(chain.rpcUrl, { start_block: 0 }) } });
      const [payment] = await waitForPayments(shop, invoiceId, (p) => p.length === 1);
      expect(payment).toMatchObject({ provider_id: 'prov_ethereum_usdt', status: 'PENDING' });
      expect(linesWith(watching, 'chain_id_mismatch')).toEqual([]);
    } finally {
      await wrong.stop();
      await right.stop();
      await watching?.stop();
      await db.drop();
    }
  }, 240_000);

  it('stops recording when a node that served the configured chain starts serving another, and resumes from its cursor when it serves it again', async () => {
    // The node behind the RPC URL changes chains (a backend repointed, a provider misrouting): while
    // `otherChain` is set, the relay answers eth_chainId for chain 1; every other call still reaches the
    // Hardhat node, whose blocks and transfers go on as before.
    let otherChain = false;
    const relay = new JsonRpcRelay(chain.rpcUrl, {
      answer: (call, answer) => (otherChain && call.method === 'eth_chainId' ? { ...answer, result: '0x1' } : answer),
    });
    await relay.start();
    const db = await sharedDatabase();
    const server = await startServer({
      databaseUrl: db.url,
      env: { ...WATCHER_ENV, LOG_LEVEL: 'info', CHAIN_ID_CHECK_SECONDS: '1', CHAINS_FILE: chainsFile(relay.url) },
    });
    const cursor = () => testCursorOf(db.url);
    try {
      const shop = await shopOn(server);
      // While the node serves the configured chain, a payment is recorded.
      const before = await createInvoice(shop, '10', 'USDT');
      const later = await createInvoice(shop, '10', 'USDT');
      const payBefore = await paymentAddress(shop, before);
      const payLater = await paymentAddress(shop, later);
      await chain.receipt(await chain.sendToken(usdt, 1, payBefore.address as string, units('10', 6)));
      await waitForPayments(shop, before, (p) => p.length === 1);
      expect(await metricsOf(server)).toMatch(/^chain_id_mismatch\{network="ethereum",mode="test"\} 0$/m);

      otherChain = true;
      const mismatches = () => linesWith(server, '"event":"chain_id_mismatch"');
      await eventually(async () => expect(mismatches().length).toBeGreaterThan(0), 5_000);
      const mismatch = JSON.parse(mismatches()[0]);
      expect(mismatch).toMatchObject({ level: 50, network: 'ethereum', mode: 'test', expected_chain: '31337', actual_chain: '1' });
      expect(mismatch.msg).toContain('serves chain 1, not chain 31337');
      expect(await metricsOf(server)).toMatch(/^chain_id_mismatch\{network="ethereum",mode="test"\} 1$/m);
      const elsewhere = await createInvoice(shop, '10', 'USDT');
      expectError(await shop.post(`/invoices/${elsewhere}/payment_address`, { provider_id: 'prov_ethereum_usdt' }), 400, {
        code: 'rail_unavailable',
        field: 'provider_id',
      });

      // A payment made meanwhile on the configured chain (the node's actual one) waits: two more checks
      // after it, a second apart, it is still not recorded and the cursor has not reached its block.
      const hash = await chain.sendToken(usdt, 1, payLater.address as string, units('10', 6));
      const receipt = await chain.receipt(hash);
      await chain.mine(2);
      const seen = mismatches().length;
      await eventually(async () => expect(mismatches().length).toBeGreaterThanOrEqual(seen + 2), 20_000);
      expect(await paymentsOf(shop, later)).toEqual([]);
      expect(await cursor()).toBeLessThan(receipt.blockNumber);
      expect(linesWith(server, 'chain_id_matches')).toEqual([]);

      // The node serves the configured chain again: watched from the cursor on, the payment is recorded.
      otherChain = false;
      await eventually(async () => expect(linesWith(server, '"event":"chain_id_matches"').length).toBeGreaterThan(0), 5_000);
      expect(JSON.parse(linesWith(server, '"event":"chain_id_matches"')[0])).toMatchObject({ network: 'ethereum', mode: 'test', chain: '31337' });
      const [payment] = await waitForPayments(shop, later, (p) => p.length === 1);
      expect(payment).toMatchObject({ provider_id: 'prov_ethereum_usdt', status: 'PENDING', idempotency_key: `ethereum:${hash}:${receipt.logs[0].logIndex}` });
      expect(await metricsOf(server)).toMatch(/^chain_id_mismatch\{network="ethereum",mode="test"\} 0$/m);
      expect((await paymentAddress(shop, elsewhere)).address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    } finally {
      await server.stop();
      await db.drop();
      await relay.stop();
    }
  }, 240_000);

  it('records nothing from the blocks of another chain its node was moved to before the next periodic check, and rewinds nothing', async () => {
    // A second node, another chain (the relay gives it chain id 1): the same deployer made the same token
    // contract there, at the same address, as often happens across chains.
    const other = await LocalChain.start();
    const otherUsdt = await other.deployToken('USDT');
    expect(otherUsdt).toBe(usdt);
    // The move happens right after a chain id check answered the configured chain: the next one is a
    // whole interval away, and the watcher polls every 100 ms meanwhile.
    let moveAfterNextCheck = false;
    const relay: JsonRpcRelay = new JsonRpcRelay(chain.rpcUrl, {
      answer(call, answer) {
        if (call.method !== 'eth_chainId') return answer;
        if (relay.nodeUrl === other.rpcUrl) return { ...answer, result: '0x1' };
        if (moveAfterNextCheck) {
          moveAfterNextCheck = false;
          relay.nodeUrl = other.rpcUrl;
        }
        return answer;
      },
    });
    await relay.start();
    const db = await sharedDatabase();
    const server = await startServer({
      databaseUrl: db.url,
      env: { ...WATCHER_ENV, LOG_LEVEL: 'info', CHAIN_ID_CHECK_SECONDS: '3', CHAINS_FILE: chainsFile(relay.url) },
    });
    const cursor = () => testCursorOf(db.url);
    try {
      const shop = await shopOn(server);
      const invoiceId = await createInvoice(shop, '10', 'USDT');
      const pay = await paymentAddress(shop, invoiceId);
      const head = await chain.blockNumber();
      await eventually(async () => expect(await cursor()).toBe(head));
      // The other chain is longer, and holds a transfer to the deposit address after the cursor's height.
      const lift = head + 3n - (await other.blockNumber());
      if (lift > 0n) await other.mine(Number(lift));
      await other.receipt(await other.sendToken(usdt, 1, pay.address as string, units('10', 6)));

      moveAfterNextCheck = true;
      await eventually(async () => expect(relay.nodeUrl).toBe(other.rpcUrl), 10_000);
      const mismatches = () => linesWith(server, '"event":"chain_id_mismatch"');
      await eventually(async () => expect(mismatches().length).toBeGreaterThan(0), 10_000);
      expect(JSON.parse(mismatches()[0])).toMatchObject({ expected_chain: '31337', actual_chain: '1' });
      // One periodic check later: nothing recorded from the other chain, the cursor where it was.
      const seen = mismatches().length;
      await eventually(async () => expect(mismatches().length).toBeGreaterThan(seen), 10_000);
      expect(await paymentsOf(shop, invoiceId)).toEqual([]);
      expect(await cursor()).toBe(head);
      expect(linesWith(server, '"event":"chain_reorg"')).toEqual([]);

      // Back on the configured chain: watched from the cursor, and only its own payment counts.
      relay.nodeUrl = chain.rpcUrl;
      await eventually(async () => expect(linesWith(server, '"event":"chain_id_matches"').length).toBeGreaterThan(0), 10_000);
      const hash = await chain.sendToken(usdt, 1, pay.address as string, units('10', 6));
      const receipt = await chain.receipt(hash);
      const payments = await waitForPayments(shop, invoiceId, (p) => p.length > 0);
      expect(payments).toEqual([expect.objectContaining({ status: 'PENDING', idempotency_key: `ethereum:${hash}:${receipt.logs[0].logIndex}` })]);
      expect(linesWith(server, '"event":"chain_reorg"')).toEqual([]);
    } finally {
      await server.stop();
      await db.drop();
      await relay.stop();
      await other.stop();
    }
  }, 240_000);

  it('records a transfer of a block a reorg replaced between the read of the blocks and of their logs, once the chain settles', async () => {
    // The node's answers are the chain's own; the relay only picks the moment: right after the node has
    // answered eth_getLogs for the block armed below, and before the service has that answer, the block is
    // replaced by another that holds a payment. The answer the service gets is the old block's (no logs).
    let armed: { block: bigint; reorg: () => Promise<void> } | null = null;
    let reorged = false;
    const relay = new JsonRpcRelay(chain.rpcUrl, {
      async answer(call, answer): Promise<JsonRpcAnswer> {
        if (call.method !== 'eth_getLogs' || !armed) return answer;
        const [filter] = call.params as [{ toBlock?: `0x${string}` }];
        if (!filter.toBlock || hexToBigInt(filter.toBlock) < armed.block) return answer;
        const { reorg } = armed;
        armed = null;
        await reorg();
        reorged = true;
        return answer;
      },
    });
    await relay.start();
    const db = await sharedDatabase();
    const server = await startServer({ databaseUrl: db.url, env: { ...WATCHER_ENV, CHAINS_FILE: chainsFile(relay.url) } });
    try {
      const shop = await shopOn(server);
      const invoiceId = await createInvoice(shop, '10', 'USDT');
      const pay = await paymentAddress(shop, invoiceId);
      // The watcher at the head.
      const head = await chain.blockNumber();
      await eventually(async () => expect(await testCursorOf(db.url)).toBe(head));
      const snapshot = await chain.test.snapshot();
      let hash: `0x${string}` | null = null;
      armed = {
        block: head + 1n,
        reorg: async () => {
          await chain.test.revert({ id: snapshot });
          hash = await chain.sendToken(usdt, 1, pay.address, units('10', 6)); // mined at once: block head + 1 of the new branch
          await chain.receipt(hash);
        },
      };
      await chain.mine(1); // block head + 1 of the old branch: empty
      await eventually(async () => expect(reorged).toBe(true));
      const receipt = await chain.receipt(hash!);
      expect(receipt.blockNumber).toBe(head + 1n);
      const [payment] = await waitForPayments(shop, invoiceId, (p) => p.length === 1);
      expect(payment).toMatchObject({ provider_id: 'prov_ethereum_usdt', idempotency_key: `ethereum:${hash}:${receipt.logs[0].logIndex}` });
    } finally {
      await server.stop();
      await db.drop();
      await relay.stop();
    }
  }, 240_000);
  it("asks a block's logs again by its hash when the node's answer for the range has none where the block's bloom says a payment may be", async () => {
    // A load-balanced node whose log index (one backend) is behind its blocks (another): for the range it
    // answers no logs rather than an error, and it refuses the block by hash (it does not have it yet).
    let behind = false;
    let byHash = 0;
    let refusedByHash = 0;
    const relay = new JsonRpcRelay(chain.rpcUrl, {
      answer(call, answer): JsonRpcAnswer {
        if (call.method !== 'eth_getLogs') return answer;
        const [filter] = call.params as [{ blockHash?: string }];
        if (filter.blockHash === undefined) return behind ? { ...answer, result: [] } : answer;
        byHash++;
        if (!behind) return answer;
        refusedByHash++;
        return { jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'unknown block' } };
      },
    });
    await relay.start();
    const db = await sharedDatabase();
    const server = await startServer({ databaseUrl: db.url, env: { ...WATCHER_ENV, CHAINS_FILE: chainsFile(relay.url) } });
    try {
      const shop = await shopOn(server);
      const invoiceId = await createInvoice(shop, '10', 'USDT');
      const pay = await paymentAddress(shop, invoiceId);
      const head = await chain.blockNumber();
      await eventually(async () => expect(await testCursorOf(db.url)).toBe(head));
      // Blocks with no Transfer to a watched address are not asked again: a token transfer elsewhere, empty blocks.
      await chain.receipt(await chain.sendToken(usdt, 1, '0x000000000000000000000000000000000000dEaD', units('5', 6)));
      await chain.mine(2);
      await eventually(async () => expect(await testCursorOf(db.url)).toBe(head + 3n));
      expect(byHash).toBe(0);

      behind = true;
      const receipt = await chain.receipt(await chain.sendToken(usdt, 1, pay.address, units('10', 6)));
      await eventually(async () => expect(refusedByHash).toBeGreaterThan(2));
      // The watcher stays below the block it could not read, whatever it read of the blocks themselves.
      expect(await testCursorOf(db.url)).toBeLessThan(receipt.blockNumber);
      expect(await paymentsOf(shop, invoiceId)).toEqual([]);

      behind = false;
      const [payment] = await waitForPayments(shop, invoiceId, (p) => p.length === 1);
      expect(payment).toMatchObject({ provider_id: 'prov_ethereum_usdt', status: 'PENDING' });
      expect(payment.idempotency_key).toBe(`ethereum:${receipt.transactionHash}:${receipt.logs[0].logIndex}`);
    } finally {
      await server.stop();
      await db.drop();
      await relay.stop();
    }
  }, 240_000);
});
