import { createServer, Server } from 'node:http';
import { EvmFollower } from './evm-follower';

// A node that answers a reported payout's transaction and receipt from fixed tables, in geth's shapes.
const OURS = '0x2222222222222222222222222222222222222222';
const SENDER = '0x3333333333333333333333333333333333333333';
const TOKEN = '0x4444444444444444444444444444444444444444';
const OTHER_TOKEN = '0x5555555555555555555555555555555555555555';
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const word = (hex: string) => `0x${hex.replace(/^0x/, '').padStart(64, '0')}`;
const tokenLog = (n: number, contract: string, from: string, to: string, units: bigint, index: number) => ({
  address: contract,
  topics: [TRANSFER_TOPIC, word(from), word(to)],
  data: word(units.toString(16)),
  blockNumber: '0x10',
  blockHash: hash(0xb10c),
  transactionHash: hash(n),
  transactionIndex: '0x0',
  logIndex: `0x${index.toString(16)}`,
  removed: false,
});
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const BLOCK_HASH = hash(0xb10c);

const transaction = (n: number, blockNumber: string | null) => ({
  hash: hash(n),
  from: SENDER,
  to: OURS,
  value: '0xde0b6b3a7640000', // 1 ETH
  nonce: `0x${n.toString(16)}`,
  gas: '0x5208',
  gasPrice: '0x3b9aca00',
  input: '0x',
  type: '0x0',
  blockNumber,
  blockHash: blockNumber ? BLOCK_HASH : null,
  transactionIndex: blockNumber ? '0x0' : null,
  v: '0x1b',
  r: hash(7),
  s: hash(8),
});
const transactions: Record<string, unknown> = {
  [hash(1)]: transaction(1, '0x10'), // mined, its receipt given
  [hash(2)]: transaction(2, null), // waiting unmined
  [hash(3)]: transaction(3, '0x10'), // mined, but the node gives no receipt for it
  [hash(4)]: { ...transaction(4, '0x10'), to: TOKEN, value: '0x0' }, // a relayer moving OURS' tokens to OURS
  [hash(5)]: { ...transaction(5, '0x10'), to: TOKEN, value: '0x0' }, // a relayer's call: OURS swaps OTHER_TOKEN for TOKEN
  [hash(6)]: { ...transaction(6, '0x10'), to: TOKEN, value: '0x0' }, // SENDER pays OURS in TOKEN
};
const tokenReceipt = (n: number, logs: unknown[]) => ({ ...(receipts[hash(1)] as object), transactionHash: hash(n), to: TOKEN, logs });
const receipts: Record<string, unknown> = {
  [hash(1)]: {
    transactionHash: hash(1),
    transactionIndex: '0x0',
    blockNumber: '0x10',
    blockHash: BLOCK_HASH,
    from: SENDER,
    to: OURS,
    status: '0x1',
    type: '0x0',
    gasUsed: '0x5208',
    cumulativeGasUsed: '0x5208',
    effectiveGasPrice: '0x3b9aca00',
    contractAddress: null,
    logs: [],
    logsBloom: `0x${'0'.repeat(512)}`,
  },
};

receipts[hash(4)] = tokenReceipt(4, [tokenLog(4, TOKEN, OURS, OURS, 5_000_000n, 0)]);
receipts[hash(5)] = tokenReceipt(5, [tokenLog(5, OTHER_TOKEN, OURS, SENDER, 9n, 0), tokenLog(5, TOKEN, SENDER, OURS, 5_000_000n, 1)]);
receipts[hash(6)] = tokenReceipt(6, [tokenLog(6, TOKEN, SENDER, OURS, 5_000_000n, 3)]);

describe('EvmFollower.transactionTransfers (against a node answering in geth shapes)', () => {
  let server: Server;
  let url = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const call = JSON.parse(body) as { id: number; method: string; params: unknown[] };
        const answer = (result: unknown) => res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
        if (call.method === 'eth_getTransactionByHash') return answer(transactions[call.params[0] as string] ?? null);
        if (call.method === 'eth_getTransactionReceipt') return answer(receipts[call.params[0] as string] ?? null);
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32601, message: `the method ${call.method} does not exist` } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads a mined transaction from its receipt, and shows one waiting unmined as such', async () => {
    const follower = new EvmFollower(url);
    expect(await follower.transactionTransfers(hash(1), OURS, null)).toEqual({
      blockNumber: 16n,
      success: true,
      transfers: [{ output: 'native', units: 10n ** 18n }],
    });
    expect(await follower.transactionTransfers(hash(2), OURS, null)).toEqual({ blockNumber: null, success: true, transfers: [] });
  });

  it('answers a hash the node does not know as unknown', async () => {
    expect(await new EvmFollower(url).transactionTransfers(hash(99), OURS, null)).toBeNull();
  });

  it('answers a transaction the node shows in a block without its receipt as unknown, never as waiting unmined', async () => {
    expect(await new EvmFollower(url).transactionTransfers(hash(3), OURS, null)).toBeNull();
  });

  it("counts a token transfer to the destination from someone else; one from the destination to itself is the destination's own, whoever sent it", async () => {
    const follower = new EvmFollower(url);
    expect(await follower.transactionTransfers(hash(6), OURS, TOKEN)).toEqual({
      blockNumber: 16n,
      success: true,
      transfers: [{ output: '3', units: 5_000_000n }],
    });
    // A relayer (a contract wallet's owner, an approved spender) moving the destination's tokens to itself pays it nothing.
    expect((await follower.transactionTransfers(hash(4), OURS, TOKEN))!.byDestination).toBe(true);
  });

  it("marks a payment as the destination's own when tokens leave the destination in it, whoever sent it (a contract wallet's swap)", async () => {
    expect(await new EvmFollower(url).transactionTransfers(hash(5), OURS, TOKEN)).toEqual({
      blockNumber: 16n,
      success: true,
      transfers: [{ output: '1', units: 5_000_000n }],
      byDestination: true,
    });
  });
});
