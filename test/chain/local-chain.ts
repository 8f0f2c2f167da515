import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  Account,
  Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  Hash,
  Hex,
  http,
  parseAbi,
  PublicClient,
  TestClient,
  WalletClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { freePort, ROOT } from '../support/server';
import { testToken } from './token';

const HARDHAT_CLI = join(ROOT, 'node_modules', 'hardhat', 'internal', 'cli', 'cli.js');
const CONFIG = join(__dirname, 'hardhat.config.js');
export const CHAIN_ID = 31337;
export const MNEMONIC = 'test test test test test test test test test test test junk';
const TRANSFER_ABI = parseAbi([
  'function transfer(address to, uint256 value) returns (bool)',
  'function transferMany(address[] to, uint256[] values) returns (bool)',
  'function sweep(address to) returns (bool)',
  'function approve(address spender, uint256 value) returns (bool)',
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
  'function decimals() view returns (uint8)',
]);

/**
 * A real Hardhat Network node (`hardhat node` from the npm package) on a free loopback port, for one
 * test file: funded accounts m/44'/60'/0'/0/i of the test mnemonic, one block per transaction unless
 * automine is turned off. `stop()` ends it; `restart()` starts a fresh node on the same port (an
 * outage as a watcher sees it; the chain starts again from block 0). Its chain id is 31337 unless
 * started with another (`{ chainId: 11155111 }` answers as Sepolia does, to follow a guide written for it).
 */
export class LocalChain {
  readonly public: PublicClient;
  readonly test: TestClient;
  private process: ChildProcess | null = null;
  private output = '';
  private readonly chain: Omit<typeof foundry, 'id'> & { id: number };

  private constructor(
    readonly port: number,
    readonly chainId = CHAIN_ID,
  ) {
    this.chain = { ...foundry, id: chainId };
    const transport = http(this.rpcUrl, { retryCount: 0 });
    this.public = createPublicClient({ chain: this.chain, transport });
    this.test = createTestClient({ chain: this.chain, mode: 'hardhat', transport });
  }

  get rpcUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  static async start(options: { chainId?: number } = {}): Promise<LocalChain> {
    const chain = new LocalChain(await freePort(), options.chainId);
    await chain.launch();
    return chain;
  }

  private async launch(): Promise<void> {
    this.output = '';
    const child = spawn(process.execPath, [HARDHAT_CLI, 'node', '--config', CONFIG, '--hostname', '127.0.0.1', '--port', String(this.port)], {
      cwd: ROOT,
      env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', HARDHAT_CHAIN_ID: String(this.chainId) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d) => (this.output = (this.output + d).slice(-20_000)));
    child.stderr?.on('data', (d) => (this.output = (this.output + d).slice(-20_000)));
    this.process = child;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) break;
      try {
        await this.public.getChainId();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    child.kill('SIGKILL');
    throw new Error(`hardhat node did not start on ${this.rpcUrl}:\n${this.output.slice(-3000)}`);
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.launch();
  }

  /** Hardhat's funded account #i (m/44'/60'/0'/0/i of the test mnemonic). */
  account(i: number): Account {
    return mnemonicToAccount(MNEMONIC, { addressIndex: i });
  }

  wallet(i: number): WalletClient {
    return createWalletClient({ chain: this.chain, account: this.account(i), transport: http(this.rpcUrl, { retryCount: 0 }) });
  }

  /** Deploys the 6-decimal test token from account #0 and gives accounts #1 to #9 a million tokens each; returns its address. */
  async deployToken(symbol = 'USDT'): Promise<Address> {
    const { abi, bytecode } = testToken();
    const hash = await this.wallet(0).deployContract({
      abi,
      bytecode,
      args: [`Test ${symbol}`, symbol, 10n ** 15n],
      account: this.account(0),
      chain: this.chain,
    });
    const receipt = await this.public.waitForTransactionReceipt({ hash });
    if (!receipt.contractAddress) throw new Error('token deployment made no contract');
    for (let i = 1; i <= 9; i++) await this.receipt(await this.sendToken(receipt.contractAddress, 0, this.account(i).address, 10n ** 12n));
    return receipt.contractAddress;
  }

  /** Sends `units` of a token from account #from to `to`; returns the transaction hash. */
  async sendToken(token: Address, from: number, to: string, units: bigint): Promise<Hash> {
    return this.wallet(from).writeContract({
      address: token,
      abi: TRANSFER_ABI,
      functionName: 'transfer',
      args: [to as Address, units],
      account: this.account(from),
      chain: this.chain,
    });
  }

  /**
   * A token transfer from account #from signed but not sent (a raw transaction): sending the same raw
   * transaction again after a reorg mines the very same transaction (same hash) in a new block.
   */
  async signTokenTransfer(token: Address, from: number, to: string, units: bigint, tipWei = 1_000_000_000n): Promise<Hex> {
    return this.signTokenCall(token, from, encodeFunctionData({ abi: TRANSFER_ABI, functionName: 'transfer', args: [to as Address, units] }), 100_000n, tipWei);
  }

  /** Lets account #spender move up to `units` of account #owner's tokens (approve); returns the transaction hash. */
  async approveToken(token: Address, owner: number, spender: number, units: bigint): Promise<Hash> {
    return this.wallet(owner).writeContract({
      address: token,
      abi: TRANSFER_ABI,
      functionName: 'approve',
      args: [this.account(spender).address, units],
      account: this.account(owner),
      chain: this.chain,
    });
  }

  /** Account #spender moving account #from's tokens to `to` (transferFrom), signed but not sent, as signTokenTransfer. */
  async signTokenTransferFrom(token: Address, spender: number, from: number, to: string, units: bigint, tipWei = 1_000_000_000n): Promise<Hex> {
    const data = encodeFunctionData({ abi: TRANSFER_ABI, functionName: 'transferFrom', args: [this.account(from).address, to as Address, units] });
    return this.signTokenCall(token, spender, data, 100_000n, tipWei);
  }

  /** Several token transfers in one transaction (transferMany), signed but not sent, as signTokenTransfer. */
  async signTokenMany(token: Address, from: number, to: string[], units: bigint[], tipWei = 1_000_000_000n): Promise<Hex> {
    const data = encodeFunctionData({ abi: TRANSFER_ABI, functionName: 'transferMany', args: [to as Address[], units] });
    return this.signTokenCall(token, from, data, 300_000n, tipWei);
  }

  /** Account #from sending its whole token balance to `to` (sweep: the amount is the balance when it runs), signed but not sent. */
  async signTokenSweep(token: Address, from: number, to: string, tipWei = 1_000_000_000n): Promise<Hex> {
    return this.signTokenCall(token, from, encodeFunctionData({ abi: TRANSFER_ABI, functionName: 'sweep', args: [to as Address] }), 100_000n, tipWei);
  }

  /** A call of the token contract from account #from at its next nonce, signed but not sent. */
  private async signTokenCall(token: Address, from: number, data: Hex, gas: bigint, tipWei: bigint): Promise<Hex> {
    const account = mnemonicToAccount(MNEMONIC, { addressIndex: from });
    const nonce = await this.public.getTransactionCount({ address: account.address, blockTag: 'pending' });
    return account.signTransaction({
      type: 'eip1559',
      chainId: this.chainId,
      to: token,
      data,
      nonce,
      gas,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: tipWei,
    });
  }

  async sendRaw(raw: Hex): Promise<Hash> {
    return this.public.sendRawTransaction({ serializedTransaction: raw });
  }

  /** Several token transfers in one transaction (one Transfer log each). */
  async sendTokenMany(token: Address, from: number, to: string[], units: bigint[]): Promise<Hash> {
    return this.wallet(from).writeContract({
      address: token,
      abi: TRANSFER_ABI,
      functionName: 'transferMany',
      args: [to as Address[], units],
      account: this.account(from),
      chain: this.chain,
    });
  }

  /** Sends `wei` of the chain's coin from account #from to `to`. */
  async sendNative(from: number, to: string, wei: bigint): Promise<Hash> {
    return this.wallet(from).sendTransaction({ to: to as Address, value: wei, account: this.account(from), chain: this.chain });
  }

  async tokenBalance(token: Address, of: string): Promise<bigint> {
    return this.public.readContract({ address: token, abi: TRANSFER_ABI, functionName: 'balanceOf', args: [of as Address] });
  }

  async mine(blocks = 1): Promise<void> {
    await this.test.mine({ blocks });
  }

  /**
   * Mines `blocks` blocks one at a time (evm_mine), each a whole block with its own hash, where `mine`
   * reserves them in bulk (hardhat_mine): after a revert, a bulk-mined block's reported hash may not be
   * the parent hash of the block mined after it, a chain the watcher refuses to read past.
   */
  async mineEach(blocks: number): Promise<void> {
    for (let i = 0; i < blocks; i++) await this.test.request({ method: 'evm_mine' } as never);
  }

  async blockNumber(): Promise<bigint> {
    return this.public.getBlockNumber({ cacheTime: 0 });
  }

  /** The time stamped on block `number`. */
  async blockTime(number: bigint): Promise<Date> {
    return new Date(Number((await this.public.getBlock({ blockNumber: number })).timestamp) * 1000);
  }

  async receipt(hash: Hex) {
    return this.public.waitForTransactionReceipt({ hash });
  }

  log(): string {
    return this.output;
  }
}
