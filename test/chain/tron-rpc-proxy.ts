import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';

interface Call {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}
interface Answer {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string };
}
/** What the node answers of a transaction, the parts the HTTP API's stand-in reads. */
interface NodeTransaction {
  from: string;
  to: string | null;
  value: string;
  input: string;
}

interface Log {
  blockNumber: string;
}

/** Nile testnet's chain id (0xcd8690dc), what the proxy answers to eth_chainId unless told otherwise. */
export const NILE_CHAIN_ID = 3448148188;

/** What the proxy may be told to do; tests change these while it runs. */
export interface TronProxyOptions {
  /** What eth_chainId answers (a Tron chain's id; Hardhat's own 31337 is never shown). */
  chainId: number;
  /** How far the `finalized` (solidified) block stays below the head. */
  finalizedLag: number;
  /** Whether eth_getBlockReceipts is answered (java-tron builds differ); false: -32601. */
  blockReceipts: boolean;
  /** Blocks whose logs eth_getLogs leaves out (indexed before the node's JSON-RPC was on). */
  unindexed: Set<bigint>;
  /** Transactions (lower-case hashes) the HTTP API shows as TRC-10 transfers (TransferAssetContract) instead of TRX. */
  trc10: Set<string>;
  /** Whether the HTTP API has /wallet/getblockbynum; false: 404, as a gateway serving gettransactionbyid alone answers. */
  blockByNum: boolean;
  /**
   * Transactions (lower-case hashes) whose receipt eth_getTransactionReceipt answers null while
   * eth_getTransactionByHash still shows them: a node that lacks their receipt (or one of a load-balanced set).
   */
  withheldReceipts: Set<string>;
  /** Most logs an eth_getLogs answer may hold; past it the node refuses the query (java-tron's limit is 10,000). */
  maxLogResults: number;
  /** Blocks eth_blockNumber answers below the head: a node behind (restarted to resync, a lagging instance). */
  headLag: number;
}

/** The eth_* methods the proxy passes to the node; every other one is "method not found", as java-tron answers it. */
const PASSED = new Set([
  'eth_blockNumber',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getLogs',
  'eth_getTransactionReceipt',
  'eth_getTransactionByHash',
]);

/**
 * A stand-in for java-tron's JSON-RPC in front of a Hardhat node (there is no java-tron here). It
 * answers as java-tron's documentation says its eth_* subset does, in our own reading of it:
 * - addresses are 20-byte hex on the wire; Hardhat's 20-byte addresses are taken as the body of a Tron
 *   address (a `T...` address is base58check of 0x41 + those 20 bytes), so nothing is rewritten;
 * - `eth_chainId` answers a Tron chain id (Nile's by default);
 * - the `pending` block tag is refused (-32602), and `finalized` names the latest solidified block,
 *   here `finalizedLag` blocks below the head;
 * - a method java-tron lacks answers -32601 (eth_getBlockReceipts too unless `blockReceipts`, then the
 *   proxy composes it from the block and its transactions' receipts);
 * - eth_getLogs leaves out the logs of `unindexed` blocks, as a node does for blocks it indexed before
 *   its JSON-RPC was turned on;
 * - blocks carry Tron's empty `stateRoot` ("0x");
 * - beside it, the node's HTTP API `/wallet/gettransactionbyid` tells a TRX transfer (TransferContract)
 *   from a TRC-10 one (TransferAssetContract, for the hashes in `trc10`), which the JSON-RPC shows alike;
 * - the receipts of `withheldReceipts` are answered null, their transactions still shown by hash;
 * - an eth_getLogs answer of more than `maxLogResults` logs is refused, as java-tron refuses one past its
 *   limit of 10,000 ("query returned more than 10000 results").
 */
export class TronRpcProxy {
  private server: Server | null = null;
  port = 0;
  /** Calls seen, by method (and `pending` asks refused). */
  readonly calls = new Map<string, number>();
  readonly options: TronProxyOptions;

  constructor(
    private readonly nodeUrl: string,
    options: Partial<TronProxyOptions> = {},
  ) {
    this.options = {
      chainId: NILE_CHAIN_ID,
      finalizedLag: 3,
      blockReceipts: false,
      unindexed: new Set(),
      trc10: new Set(),
      blockByNum: true,
      withheldReceipts: new Set(),
      maxLogResults: Number.POSITIVE_INFINITY,
      headLag: 0,
      ...options,
    };
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/jsonrpc`;
  }

  /** The base of the stand-in for java-tron's HTTP API (`/wallet/gettransactionbyid`). */
  get httpUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(nodeUrl: string, options: Partial<TronProxyOptions> = {}): Promise<TronRpcProxy> {
    const proxy = new TronRpcProxy(nodeUrl, options);
    proxy.server = createServer((req, res) => void proxy.handle(req, res));
    await new Promise<void>((resolve) => proxy.server!.listen(0, '127.0.0.1', resolve));
    proxy.port = (proxy.server.address() as { port: number }).port;
    return proxy;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    server?.closeAllConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  count(method: string): number {
    return this.calls.get(method) ?? 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.url === '/wallet/getnowblock') {
        // The HTTP API's head block, as the preflight asks it (only the parts it reads: the API answers).
        const head = BigInt((await this.node('eth_blockNumber', [])).result as string);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ block_header: { raw_data: { number: Number(head) } } }));
        return;
      }
      if (req.url === '/wallet/getblockbynum') {
        if (!this.options.blockByNum) {
          this.calls.set('getblockbynum refused', this.count('getblockbynum refused') + 1);
          res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
          return;
        }
        const { num } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { num: number };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await this.walletBlock(num)));
        return;
      }
      if (req.url === '/wallet/gettransactionbyid') {
        const { value } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { value: string };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await this.walletTransaction(value)));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call | Call[];
      const answers = await Promise.all((Array.isArray(body) ? body : [body]).map((call) => this.one(call)));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    }
  }

  private async one(call: Call): Promise<Answer> {
    this.calls.set(call.method, (this.calls.get(call.method) ?? 0) + 1);
    const fail = (code: number, message: string): Answer => ({ jsonrpc: '2.0', id: call.id, error: { code, message } });
    const params = call.params ?? [];
    if (JSON.stringify(params).includes('"pending"')) {
      this.calls.set('pending', this.count('pending') + 1);
      return fail(-32602, 'TAG pending not supported');
    }
    if (call.method === 'eth_chainId') return { jsonrpc: '2.0', id: call.id, result: `0x${this.options.chainId.toString(16)}` };
    const passed = PASSED.has(call.method) || (call.method === 'eth_getBlockReceipts' && this.options.blockReceipts);
    if (!passed) return fail(-32601, `the method ${call.method} does not exist/is not available`);

    if (call.method === 'eth_getBlockReceipts') return { jsonrpc: '2.0', id: call.id, result: await this.blockReceiptsOf(params[0] as string) };
    if (call.method === 'eth_getTransactionReceipt' && this.options.withheldReceipts.has(String(params[0]).toLowerCase())) {
      return { jsonrpc: '2.0', id: call.id, result: null };
    }
    let forward = params;
    if (call.method === 'eth_getBlockByNumber' && params[0] === 'finalized') {
      const head = BigInt((await this.node('eth_blockNumber', [])).result as string);
      const finalized = head > BigInt(this.options.finalizedLag) ? head - BigInt(this.options.finalizedLag) : 0n;
      forward = [`0x${finalized.toString(16)}`, params[1]];
    }
    const answer = await this.node(call.method, forward);
    answer.id = call.id;
    if (answer.error) return answer;
    if (call.method === 'eth_blockNumber' && this.options.headLag > 0) {
      const head = BigInt(answer.result as string);
      answer.result = `0x${(head > BigInt(this.options.headLag) ? head - BigInt(this.options.headLag) : 0n).toString(16)}`;
    }
    if ((call.method === 'eth_getBlockByNumber' || call.method === 'eth_getBlockByHash') && answer.result) {
      (answer.result as Record<string, unknown>).stateRoot = '0x';
    }
    if (call.method === 'eth_getLogs' && Array.isArray(answer.result)) {
      answer.result = (answer.result as Log[]).filter((log) => !this.options.unindexed.has(BigInt(log.blockNumber)));
      if ((answer.result as Log[]).length > this.options.maxLogResults) {
        this.calls.set('tooManyLogs', this.count('tooManyLogs') + 1);
        return fail(-32005, `query returned more than ${this.options.maxLogResults} results`);
      }
    }
    return answer;
  }

  /**
   * A transaction as java-tron's HTTP API shows it (`raw_data.contract[0]`, hex addresses with their 41 byte):
   * a call with data is a TriggerSmartContract, a plain value transfer a TransferContract, or a
   * TransferAssetContract (a TRC-10 token) when the test says so. `{}` for a hash the node does not know.
   */
  private async walletTransaction(id: string): Promise<unknown> {
    this.calls.set('gettransactionbyid', this.count('gettransactionbyid') + 1);
    const hash = `0x${id.replace(/^0x/, '').toLowerCase()}`;
    const tx = (await this.node('eth_getTransactionByHash', [hash])).result as NodeTransaction | null;
    return tx ? this.shownTransaction(hash, tx) : {};
  }

  /** A block as java-tron's HTTP API shows it (`/wallet/getblockbynum`): its id (the hash without 0x) and its transactions as above; `{}` past the head. */
  private async walletBlock(num: number): Promise<unknown> {
    this.calls.set('getblockbynum', this.count('getblockbynum') + 1);
    const block = (await this.node('eth_getBlockByNumber', [`0x${num.toString(16)}`, true])).result as {
      hash: string;
      number: string;
      transactions: Array<NodeTransaction & { hash: string }>;
    } | null;
    if (!block) return {};
    return {
      blockID: block.hash.slice(2),
      block_header: { raw_data: { number: num } },
      transactions: block.transactions.map((tx) => this.shownTransaction(tx.hash.toLowerCase(), tx)),
    };
  }

  private shownTransaction(hash: string, tx: NodeTransaction): unknown {
    const owner = `41${tx.from.slice(2).toLowerCase()}`;
    const to = tx.to ? `41${tx.to.slice(2).toLowerCase()}` : '';
    const amount = Number(BigInt(tx.value));
    const contract = this.options.trc10.has(hash)
      ? { type: 'TransferAssetContract', parameter: { value: { amount, asset_name: '31303030303031', owner_address: owner, to_address: to } } }
      : tx.input && tx.input !== '0x'
        ? { type: 'TriggerSmartContract', parameter: { value: { call_value: amount, contract_address: to, data: tx.input.slice(2), owner_address: owner } } }
        : { type: 'TransferContract', parameter: { value: { amount, owner_address: owner, to_address: to } } };
    return { ret: [{ contractRet: 'SUCCESS' }], txID: hash.slice(2), raw_data: { contract: [contract] } };
  }

  /** The receipts of a block's transactions, in order (composed here: the Hardhat node may not have the method). */
  private async blockReceiptsOf(number: string): Promise<unknown[] | null> {
    const block = (await this.node('eth_getBlockByNumber', [number, false])).result as { transactions: string[] } | null;
    if (!block) return null;
    const receipts: unknown[] = [];
    for (const hash of block.transactions) receipts.push((await this.node('eth_getTransactionReceipt', [hash])).result);
    return receipts;
  }

  private async node(method: string, params: unknown[]): Promise<Answer> {
    const response = await fetch(this.nodeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await response.json()) as Answer;
  }
}
