import { createServer, Server } from 'node:http';
import type { WatchedAddresses } from '../domain/payment-rail';
import { hexToTron } from './tron-address';
import { TRANSFER_TOPIC, TronFollower } from './tron-follower';

// A node that answers from fixed tables, in java-tron's shapes: what the follower reads of one block.
const TOKEN = '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c';
const OTHER_TOKEN = '0x1111111111111111111111111111111111111111';
const OURS = '0x2222222222222222222222222222222222222222';
const STRANGER = '0x3333333333333333333333333333333333333333';
const word = (hex: string) => `0x${hex.replace(/^0x/, '').padStart(64, '0')}`;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const BLOCK_HASH = hash(0xb10c);

const transactions = [
  { hash: hash(1), to: OURS, value: '0xf4240' }, // 1 TRX to us, succeeded
  { hash: hash(2), to: OURS, value: '0x1e8480' }, // 2 TRX to us, failed
  { hash: hash(3), to: STRANGER, value: '0x5' }, // to someone else
  { hash: hash(4), to: TOKEN, value: '0x0' }, // a USDT transfer to us
  { hash: hash(5), to: OURS, value: '0x3' }, // a TRC-10 token to us: the JSON-RPC shows it as value
];
/** What the node's HTTP API says each transaction is. */
const contracts: Record<string, unknown> = {
  [hash(1)]: { type: 'TransferContract', parameter: { value: { amount: 1_000_000, to_address: `41${OURS.slice(2)}` } } },
  [hash(2)]: { type: 'TransferContract', parameter: { value: { amount: 2_000_000, to_address: `41${OURS.slice(2)}` } } },
  [hash(5)]: { type: 'TransferAssetContract', parameter: { value: { amount: 3, asset_name: '31303030303031', to_address: `41${OURS.slice(2)}` } } },
  [hash(6)]: { type: 'TransferContract', parameter: { value: { amount: 1_000_000, to_address: `41${OURS.slice(2)}` } } },
};
/** 1 TRX to us the node shows by its hash but gives no receipt for (a node lacking it). */
const receiptless = { hash: hash(6), to: OURS, value: '0xf4240' };
/** 2^53 + 1 sun to us, outside the scanned block: a reported payout whose amount a float cannot hold. */
const huge = { hash: hash(7), to: OURS, value: '0x20000000000001' };
/** What the HTTP API answers for it, as java-tron writes it: the amount a bare JSON number. */
const hugeContract = `{"txID":"${hash(7).slice(2)}","raw_data":{"contract":[{"type":"TransferContract","parameter":{"value":{"amount":9007199254740993,"to_address":"41${OURS.slice(2)}"}}}]}}`;
const transferLog = (tx: number, contract: string, to: string, units: number, index: number, from = STRANGER) => ({
  address: contract,
  topics: [TRANSFER_TOPIC, word(from), word(to)],
  data: word(units.toString(16)),
  blockNumber: '0x10',
  blockHash: BLOCK_HASH,
  transactionHash: hash(tx),
  logIndex: `0x${index.toString(16)}`,
});
const receipts: Record<string, unknown> = {
  [hash(1)]: { transactionHash: hash(1), blockNumber: '0x10', blockHash: BLOCK_HASH, status: '0x1', logs: [] },
  [hash(2)]: { transactionHash: hash(2), blockNumber: '0x10', blockHash: BLOCK_HASH, status: '0x0', logs: [] },
  [hash(5)]: { transactionHash: hash(5), blockNumber: '0x10', blockHash: BLOCK_HASH, status: '0x1', logs: [] },
  [hash(4)]: { transactionHash: hash(4), blockNumber: '0x10', blockHash: BLOCK_HASH, status: '0x1', logs: [transferLog(4, TOKEN, OURS, 7_000_000, 0)] },
  [hash(7)]: { transactionHash: hash(7), blockNumber: '0x10', blockHash: BLOCK_HASH, status: '0x1', logs: [] },
  // A relayer moving our tokens to ourselves; a relayer's call in which we swap OTHER_TOKEN for TOKEN.
  [hash(10)]: { transactionHash: hash(10), blockNumber: '0x10', blockHash: BLOCK_HASH, status: '0x1', logs: [transferLog(10, TOKEN, OURS, 5, 0, OURS)] },
  [hash(11)]: {
    transactionHash: hash(11),
    blockNumber: '0x10',
    blockHash: BLOCK_HASH,
    status: '0x1',
    logs: [transferLog(11, OTHER_TOKEN, STRANGER, 9, 0, OURS), transferLog(11, TOKEN, OURS, 5, 1)],
  },
};
/** The relayers' transactions (sent by a stranger, outside the scanned block). */
const relayed = [
  { hash: hash(10), from: STRANGER, to: TOKEN, value: '0x0' },
  { hash: hash(11), from: STRANGER, to: TOKEN, value: '0x0' },
];

describe('TronFollower (against a node answering in java-tron shapes)', () => {
  let server: Server;
  let url = '';
  let http = '';
  let logs: unknown[] = [];
  const asked: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.url === '/wallet/gettransactionbyid') {
          const id = `0x${(JSON.parse(body) as { value: string }).value}`;
          asked.push(`gettransactionbyid ${id}`);
          if (id === hash(7)) return res.end(hugeContract);
          return res.end(JSON.stringify(contracts[id] ? { txID: id.slice(2), raw_data: { contract: [contracts[id]] } } : {}));
        }
        const call = JSON.parse(body) as { id: number; method: string; params: unknown[] };
        asked.push(`${call.method} ${JSON.stringify(call.params)}`);
        const answer = (result: unknown) => res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
        const fail = (code: number, message: string) => res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code, message } }));
        if (call.method === 'eth_chainId') return answer('0x2b6653dc');
        if (call.method === 'eth_blockNumber') return answer('0x14');
        if (call.method === 'eth_getBlockByNumber') {
          const tag = call.params[0];
          if (tag === 'pending') return fail(-32602, 'TAG pending not supported');
          const number = tag === 'finalized' ? '0x11' : (tag as string);
          return answer({
            number,
            hash: number === '0x10' ? BLOCK_HASH : hash(Number(number)),
            parentHash: hash(9),
            timestamp: '0x6553f100',
            stateRoot: '0x',
            transactions,
          });
        }
        if (call.method === 'eth_getLogs') return answer(logs);
        if (call.method === 'eth_getTransactionReceipt') return answer(receipts[call.params[0] as string] ?? null);
        if (call.method === 'eth_getTransactionByHash')
          return answer([...transactions, receiptless, huge, ...relayed].find((t) => t.hash === call.params[0]) ?? null);
        return fail(-32601, `the method ${call.method} does not exist/is not available`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    http = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    url = `${http}/jsonrpc`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => (asked.length = 0));

  const everyone: WatchedAddresses = { addresses: null, resolve: (c) => Promise.resolve(new Set(c.filter((a) => a === hexToTron(OURS)))) };

  it('answers the chain id in decimal, the head, and the finalized block by tag or by depth', async () => {
    const solid = new TronFollower(url, 'solidified', 27);
    expect(await solid.chain()).toBe('728126428');
    expect(await solid.head()).toBe(0x14n);
    expect(await solid.finalized()).toBe(0x11n);
    expect(await new TronFollower(url, 'confirmations', 5).finalized()).toBe(0x14n - 4n);
    // By depth below the head the watcher read this step (the node's head may have moved since): not asked again.
    asked.length = 0;
    expect(await new TronFollower(url, 'confirmations', 5).finalized(0x12n)).toBe(0x12n - 4n);
    expect(asked).toEqual([]);
    // The solidified block is the node's whatever head the caller read, up to that head.
    expect(await solid.finalized(0x12n)).toBe(0x11n);
    expect(await solid.finalized(0x11n)).toBe(0x11n);
    // Above it, the two answers came from two views of the chain (instances behind a load balancer): nothing is final.
    await expect(solid.finalized(0x10n)).rejects.toThrow(/solidified block 17 is above the head 16/);
  });

  it("answers a transaction's block, and none for one that failed there when only a success counts", async () => {
    const follower = new TronFollower(url, 'solidified', 27);
    expect(await follower.transactionBlock(hash(2))).toBe(0x10n);
    expect(await follower.transactionBlock(hash(2), undefined, { succeeded: true })).toBeNull();
    expect(await follower.transactionBlock(hash(1), undefined, { succeeded: true })).toBe(0x10n);
    expect(await follower.transactionBlock(hash(9), undefined, { succeeded: true })).toBeNull();
  });

  it('counts TRX whose transaction succeeded and the logged USDT, in T addresses; a failed transfer, a TRC-10 token and a stranger are not', async () => {
    logs = [transferLog(4, TOKEN, OURS, 7_000_000, 0), transferLog(4, OTHER_TOKEN, OURS, 1, 1), transferLog(4, TOKEN, STRANGER, 9, 2)];
    const follower = new TronFollower(url, 'solidified', 27, http);
    const read = await follower.scan({ from: 0x10n, to: 0x10n }, everyone, [hexToTron(TOKEN)]);
    expect(read.blocks).toEqual([{ number: 0x10n, hash: BLOCK_HASH, parentHash: hash(9), timestamp: 0x6553f100n }]);
    expect(read.transfers).toEqual([
      { to: hexToTron(OURS), asset: null, units: 1_000_000n, txHash: hash(1), output: 'native', position: null, blockNumber: 0x10n, blockHash: BLOCK_HASH },
      { to: hexToTron(OURS), asset: hexToTron(TOKEN), units: 7_000_000n, txHash: hash(4), output: '0', position: 0, blockNumber: 0x10n, blockHash: BLOCK_HASH },
    ]);
    // The other contract's log to us is reported, never counted.
    expect(read.foreign).toEqual([{ asset: hexToTron(OTHER_TOKEN), txHash: hash(4) }]);
    expect(follower.crossChecked).toBe(0);
    // The TRC-10 transfer looked like 3 sun of TRX on the JSON-RPC; the HTTP API said otherwise.
    expect(follower.notTrx).toBe(1);
    expect(asked.filter((a) => a.startsWith('gettransactionbyid')).sort()).toEqual([`gettransactionbyid ${hash(1)}`, `gettransactionbyid ${hash(5)}`]);
    // No eth_getBlockReceipts on this node: asked once, then receipts per transaction.
    expect(asked.filter((a) => a.startsWith('eth_getBlockReceipts'))).toHaveLength(1);
    expect(asked.some((a) => a.includes('pending'))).toBe(false);
    const again = await follower.scan({ from: 0x10n, to: 0x10n }, everyone, [hexToTron(TOKEN)]);
    expect(again.transfers).toHaveLength(2);
    // Without the HTTP API no TRX is reported at all (it could be a TRC-10 token).
    const blind = await new TronFollower(url, 'solidified', 27).scan({ from: 0x10n, to: 0x10n }, everyone, [hexToTron(TOKEN)]);
    expect(blind.transfers.map((t) => t.asset)).toEqual([hexToTron(TOKEN)]);
    expect(asked.filter((a) => a.startsWith('eth_getBlockReceipts'))).toHaveLength(1);
  });

  it("reads a block's token calls from their receipts when the log answer has nothing for it", async () => {
    logs = [];
    const follower = new TronFollower(url, 'solidified', 27, http);
    const read = await follower.scan(
      { from: 0x10n, to: 0x10n },
      { addresses: new Set([hexToTron(OURS)]), resolve: () => Promise.reject(new Error('not asked')) },
      [hexToTron(TOKEN)],
    );
    expect(follower.crossChecked).toBe(1);
    expect(read.transfers.map((t) => [t.asset, t.units, t.output])).toEqual([
      [null, 1_000_000n, 'native'],
      [hexToTron(TOKEN), 7_000_000n, '0'],
    ]);
  });

  it('reads only the headers when no address is watched', async () => {
    const read = await new TronFollower(url, 'solidified', 27).scan(
      { from: 0x10n, to: 0x10n },
      { addresses: new Set(), resolve: () => Promise.resolve(new Set()) },
      [hexToTron(TOKEN)],
    );
    expect(read).toEqual({ blocks: [expect.objectContaining({ number: 0x10n })], transfers: [], foreign: [] });
    expect(asked.filter((a) => a.startsWith('eth_getLogs'))).toEqual([]);
  });

  it('reads a reported payout: TRX checked against the HTTP API, TRC-20 Transfer logs to the address, failures and unknown hashes', async () => {
    const follower = new TronFollower(url, 'solidified', 27, http);
    const ours = hexToTron(OURS);
    expect(await follower.transactionTransfers(hash(1), ours, null)).toEqual({
      blockNumber: 0x10n,
      success: true,
      transfers: [{ output: 'native', units: 1_000_000n }],
    });
    expect(asked).toContain(`gettransactionbyid ${hash(1)}`);
    // An amount past 2^53 sun, read exactly from the HTTP API's answer.
    expect((await follower.transactionTransfers(hash(7), ours, null))!.transfers).toEqual([{ output: 'native', units: 9_007_199_254_740_993n }]);
    // Paid to someone else, failed, a TRC-10 token the JSON-RPC shows as value: nothing paid.
    expect((await follower.transactionTransfers(hash(1), hexToTron(STRANGER), null))!.transfers).toEqual([]);
    expect(await follower.transactionTransfers(hash(2), ours, null)).toEqual({ blockNumber: 0x10n, success: false, transfers: [] });
    expect((await follower.transactionTransfers(hash(5), ours, null))!.transfers).toEqual([]);
    // Without the HTTP API no TRX is seen.
    expect((await new TronFollower(url, 'solidified', 27).transactionTransfers(hash(1), ours, null))!.transfers).toEqual([]);
    // A token payout: each Transfer log of the token's contract to the address, by its log index.
    expect(await follower.transactionTransfers(hash(4), ours, hexToTron(TOKEN))).toEqual({
      blockNumber: 0x10n,
      success: true,
      transfers: [{ output: '0', units: 7_000_000n }],
    });
    expect((await follower.transactionTransfers(hash(4), ours, hexToTron(OTHER_TOKEN)))!.transfers).toEqual([]);
    expect((await follower.transactionTransfers(hash(4), hexToTron(STRANGER), hexToTron(TOKEN)))!.transfers).toEqual([]);
    // A hash the node does not know.
    expect(await follower.transactionTransfers(hash(99), ours, null)).toBeNull();
  });

  it("marks a payment made while tokens leave the destination (to itself, or in a swap) as the destination's own, whoever sent it", async () => {
    const follower = new TronFollower(url, 'solidified', 27, http);
    const ours = hexToTron(OURS);
    expect((await follower.transactionTransfers(hash(10), ours, hexToTron(TOKEN)))!.byDestination).toBe(true);
    expect(await follower.transactionTransfers(hash(11), ours, hexToTron(TOKEN))).toEqual({
      blockNumber: 0x10n,
      success: true,
      transfers: [{ output: '1', units: 5n }],
      byDestination: true,
    });
  });

  it('answers a transaction the node shows without its receipt as unknown, never as waiting unmined', async () => {
    const follower = new TronFollower(url, 'solidified', 27, http);
    expect(await follower.transactionTransfers(hash(6), hexToTron(OURS), null)).toBeNull();
    expect(await follower.transactionTransfers(hash(6), hexToTron(OURS), hexToTron(TOKEN))).toBeNull();
  });
});
