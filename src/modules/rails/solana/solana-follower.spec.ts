import { createServer, type Server } from 'node:http';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { type Address, getBase58Decoder } from '@solana/kit';
import type { WatchedAddresses } from '../domain/payment-rail';
import { readPosition, SIGNATURE_PAGE, SolanaFollower } from './solana-follower';
import { joinPaymentKey } from './solana-keys';

// A node answering Solana's documented JSON-RPC shapes for the calls the follower makes, from a fixed history.
const WALLET = 'mvines9iiHiQTysrwkJjGf2gb9Ex9jXJX8ns3qwf2kN';
const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const REFERENCE = '82ZJ7nbGpixjeDCmEhUcmwXYfvurzAgGdtSMuHnUgyny';
const PAYER = 'So11111111111111111111111111111111111111112';
const sig = (n: number) => getBase58Decoder().decode(new Uint8Array(64).fill(0).map((_, i) => (i < 4 ? (n >> (8 * i)) & 255 : 7)));

interface Entry {
  signature: string;
  slot: number;
  err: unknown;
}

describe('the Solana follower against a node in JSON-RPC shapes', () => {
  let server: Server;
  let url: string;
  const asked: string[] = [];
  let history: Entry[] = [];
  const transactions = new Map<string, unknown>();
  /** Signatures the instance answering has not indexed yet (behind a load balancer): it neither lists nor knows them. */
  const unindexed = new Set<string>();
  let ata: string;

  beforeAll(async () => {
    [ata] = await findAssociatedTokenPda({ owner: WALLET as Address, mint: MINT as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const call = JSON.parse(body) as { id: number; method: string; params: unknown[] };
        asked.push(call.method === 'getSignaturesForAddress' ? `${call.method} ${JSON.stringify(call.params)}` : call.method);
        const answer = (result: unknown) => res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
        if (call.method === 'getGenesisHash') return answer('EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG');
        if (call.method === 'getSlot') return answer((call.params[0] as { commitment: string }).commitment === 'finalized' ? 9000 : 9032);
        if (call.method === 'getSignaturesForAddress') {
          const [account, config] = call.params as [string, { limit: number; before?: string; until?: string }];
          // As a node indexes them: by every account a transaction names (one without a transaction here: the wallet's).
          const names = (e: Entry) => {
            const tx = transactions.get(e.signature) as { transaction: { message: { accountKeys: Array<{ pubkey: string }> } } } | undefined;
            return tx ? tx.transaction.message.accountKeys.some((k) => k.pubkey === account) : account === WALLET;
          };
          const mine = [...history].reverse().filter((e) => names(e) && !unindexed.has(e.signature));
          // A `before` the node does not know: an empty list (as a node answers without long-term storage).
          if (config.before && !mine.some((e) => e.signature === config.before)) return answer([]);
          let start = config.before ? mine.findIndex((e) => e.signature === config.before) + 1 : 0;
          const out: Entry[] = [];
          for (; start < mine.length && out.length < config.limit; start++) {
            if (mine[start].signature === config.until) break;
            out.push(mine[start]);
          }
          return answer(out);
        }
        if (call.method === 'getTransaction') return answer(transactions.get(call.params[0] as string) ?? null);
        if (call.method === 'getSignatureStatuses') {
          // sig(1) finalized in slot 42, sig(2) only processed, the history's indexed ones finalized in their slot;
          // any other signature unknown (a dropped fork's): null.
          const [signature] = (call.params[0] as string[]) ?? [];
          const listed = history.find((e) => e.signature === signature && !unindexed.has(signature));
          const value =
            signature === sig(1)
              ? { slot: 42, confirmationStatus: 'finalized', err: null }
              : signature === sig(2)
                ? { slot: 43, confirmationStatus: 'processed', err: null }
                : signature === sig(4)
                  ? { slot: 44, confirmationStatus: 'finalized', err: { InstructionError: [0, { Custom: 1 }] } }
                  : listed
                    ? { slot: listed.slot, confirmationStatus: 'finalized', err: null }
                    : null;
          return answer({ context: { slot: 9032 }, value: [value] });
        }
        if (call.method === 'getBlock') {
          // Slot 500 holds sig(3); 501 was skipped; 502 is above what this node has at the commitment; 503 holds none.
          const fail = (code: number, message: string) => res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code, message } }));
          const [slot, config] = call.params as [number, { commitment: string; transactionDetails: string }];
          asked[asked.length - 1] = `getBlock ${slot} ${config.commitment} ${config.transactionDetails}`;
          if (slot === 501) return fail(-32007, 'Slot 501 was skipped, or missing due to ledger jump to recent snapshot');
          if (slot === 502) return fail(-32004, 'Block not available for slot 502');
          return answer({ blockhash: 'x', parentSlot: slot - 1, signatures: slot === 500 ? [sig(9), sig(3)] : [] });
        }
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'Method not found' } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => (asked.length = 0));

  const payment = (slot: number, keys: string[], lamports: [number, number], tokens: [string, string] | null, err: unknown = null) => ({
    slot,
    blockTime: 1_764_400_000 + slot,
    meta: {
      err,
      preBalances: keys.map((k) => (k === WALLET ? lamports[0] : 5)),
      postBalances: keys.map((k) => (k === WALLET ? lamports[1] : 5)),
      preTokenBalances: tokens ? [{ accountIndex: keys.indexOf(ata), mint: MINT, owner: WALLET, uiTokenAmount: { amount: tokens[0] } }] : [],
      postTokenBalances: tokens ? [{ accountIndex: keys.indexOf(ata), mint: MINT, owner: WALLET, uiTokenAmount: { amount: tokens[1] } }] : [],
    },
    transaction: { signatures: ['x'], message: { accountKeys: keys.map((pubkey) => ({ pubkey, signer: pubkey === PAYER, writable: true })) } },
  });

  it('answers the cluster, the confirmed head and the commitment slot', async () => {
    const follower = new SolanaFollower(url, 'finalized');
    expect(await follower.chain()).toBe('EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG');
    expect(await follower.head()).toBe(9032n);
    expect(await follower.finalized()).toBe(9000n);
    expect(await new SolanaFollower(url, 'confirmed').finalized()).toBe(9032n);
    expect(await follower.transactionBlock(sig(1))).toBe(42n);
    // Seen at processed only, or unknown to the node (the fork that held it died): in no block.
    expect(await follower.transactionBlock(sig(2))).toBeNull();
    expect(await follower.transactionBlock(sig(3))).toBeNull();
    // The watcher asks again before a payment completes: slots have no hash its reorg check could compare.
    expect(follower.rechecksTransactions).toBe(true);
  });

  it('believes a signature the node does not know is in no block only when the block of the slot it was seen in says so', async () => {
    const follower = new SolanaFollower(url, 'finalized');
    // The block lists it: the status answer was from an instance that lacks it; it is in its slot.
    expect(await follower.transactionBlock(sig(3), 500n)).toBe(500n);
    expect(asked).toEqual(['getSignatureStatuses', 'getBlock 500 finalized signatures']);
    // The slot was skipped, or its block does not hold it: the fork that held it died.
    expect(await follower.transactionBlock(sig(3), 501n)).toBeNull();
    expect(await follower.transactionBlock(sig(3), 503n)).toBeNull();
    // The node cannot show that block (behind, cleaned up): not known either way, so the call fails.
    await expect(follower.transactionBlock(sig(3), 502n)).rejects.toThrow(/-32004/);
    // A status the node knows is taken as it is, the block not asked.
    asked.length = 0;
    expect(await follower.transactionBlock(sig(1), 40n)).toBe(42n);
    expect(await follower.transactionBlock(sig(2), 43n)).toBeNull();
    expect(asked).toEqual(['getSignatureStatuses', 'getSignatureStatuses']);
  });

  it('answers the slot of a transaction that failed there, and none when only a success counts', async () => {
    const follower = new SolanaFollower(url, 'finalized');
    expect(await follower.transactionBlock(sig(4))).toBe(44n);
    expect(await follower.transactionBlock(sig(4), 44n, { succeeded: true })).toBeNull();
    expect(await follower.transactionBlock(sig(1), undefined, { succeeded: true })).toBe(42n);
  });

  it('pages through a busy wallet with before, reads each range once with until, and reports successful transfers, without a reference as toWallet', async () => {
    // 2,500 transfers to the wallet in slots 100..2599 (none of ours), then ours in slot 2600 (SOL) and 2601 (USDC), and a failed one.
    history = [];
    transactions.clear();
    for (let i = 0; i < 2500; i++) history.push({ signature: sig(i), slot: 100 + i, err: null });
    history.push(
      { signature: sig(9001), slot: 2600, err: null },
      { signature: sig(9002), slot: 2601, err: null },
      { signature: sig(9003), slot: 2602, err: { InstructionError: [0, 'Custom'] } },
    );
    for (let i = 0; i < 2500; i++) transactions.set(sig(i), payment(100 + i, [PAYER, WALLET], [10, 11], null));
    transactions.set(sig(9001), payment(2600, [PAYER, WALLET, REFERENCE], [10, 1_500_000_010], null));
    transactions.set(sig(9002), payment(2601, [PAYER, ata, REFERENCE, MINT], [10, 10], ['0', '25494902']));
    const key = joinPaymentKey(WALLET, REFERENCE);
    const watched: WatchedAddresses = {
      addresses: null,
      resolve: (candidates) => Promise.resolve(new Set(candidates.filter((c) => c === key))),
      accounts: () => Promise.resolve([WALLET]),
    };
    const follower = new SolanaFollower(url, 'finalized');
    const first = await follower.scan({ from: 2590n, to: 2610n }, watched, [MINT]);
    expect(first.blocks).toHaveLength(21);
    // The ten reference-less transfers in the range (1 lamport each, slots 2590..2599): to the wallet itself.
    expect(first.transfers.filter((t) => t.toWallet)).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        to: WALLET,
        asset: null,
        units: 1n,
        txHash: sig(2490 + i),
        output: `${WALLET}:native`,
        position: null,
        blockNumber: BigInt(2590 + i),
        blockHash: `slot:${2590 + i}`,
        toWallet: true,
      })),
    );
    expect(first.transfers.filter((t) => !t.toWallet)).toEqual([
      expect.objectContaining({
        to: key,
        asset: null,
        units: 1_500_000_000n,
        txHash: sig(9001),
        output: REFERENCE,
        blockNumber: 2600n,
        blockHash: 'slot:2600',
      }),
      expect.objectContaining({ to: key, asset: MINT, units: 25_494_902n, txHash: sig(9002), output: REFERENCE, blockNumber: 2601n }),
    ]);
    expect(first.blocks[10]).toMatchObject({ number: 2600n, timestamp: BigInt(1_764_400_000 + 2600) });
    // The failed transaction was never read.
    expect(asked.filter((a) => a === 'getTransaction')).toHaveLength(2 + 10);

    // A range far back pages with `before` through the newer signatures (1,000 a page).
    asked.length = 0;
    const old = await new SolanaFollower(url, 'finalized').scan({ from: 100n, to: 101n }, watched, [MINT]);
    expect(old.transfers.map((t) => [t.txHash, t.toWallet])).toEqual([
      [sig(0), true],
      [sig(1), true],
    ]);
    const pages = asked.filter((a) => a.startsWith('getSignaturesForAddress') && a.includes(WALLET));
    expect(pages).toHaveLength(3);
    expect(pages[1]).toContain('"before"');
    expect(SIGNATURE_PAGE).toBe(1000);

    // The next range asks only what is newer than the last one read (`until`).
    history.push({ signature: sig(9100), slot: 2615, err: null });
    transactions.set(sig(9100), payment(2615, [PAYER, WALLET], [10, 20], null));
    asked.length = 0;
    const next = await follower.scan({ from: 2611n, to: 2620n }, watched, [MINT]);
    expect(next.transfers).toEqual([expect.objectContaining({ to: WALLET, asset: null, units: 10n, txHash: sig(9100), toWallet: true })]);
    const walletAsk = asked.find((a) => a.startsWith('getSignaturesForAddress') && a.includes(WALLET))!;
    expect(walletAsk).toContain(`"until":"${sig(9003)}"`);
  });

  it('reports money to the wallet with an unknown reference or none as toWallet (SOL and the token account), never what the wallet paid out', async () => {
    const OTHER_REFERENCE = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
    history = [
      { signature: sig(8001), slot: 5000, err: null },
      { signature: sig(8002), slot: 5001, err: null },
      { signature: sig(8003), slot: 5002, err: null },
      { signature: sig(8004), slot: 5003, err: null },
    ];
    transactions.clear();
    // USDC with a reference the service never handed out; SOL with none; the wallet paying (its lamports down); our reference.
    transactions.set(sig(8001), payment(5000, [PAYER, ata, OTHER_REFERENCE, MINT], [10, 10], ['5', '12345683']));
    transactions.set(sig(8002), payment(5001, [PAYER, WALLET], [0, 123_456_789], null));
    transactions.set(sig(8003), payment(5002, [WALLET, PAYER], [1_000_000, 900_000], null));
    transactions.set(sig(8004), payment(5003, [PAYER, WALLET, REFERENCE], [0, 7], null));
    const key = joinPaymentKey(WALLET, REFERENCE);
    const watched: WatchedAddresses = { addresses: new Set([key]), resolve: () => Promise.resolve(new Set([key])), accounts: () => Promise.resolve([WALLET]) };
    const read = await new SolanaFollower(url, 'finalized').scan({ from: 5000n, to: 5005n }, watched, [MINT]);
    expect(read.transfers).toEqual([
      expect.objectContaining({
        to: WALLET,
        asset: MINT,
        units: 12_345_678n,
        txHash: sig(8001),
        output: `${WALLET}:${MINT}`,
        toWallet: true,
        blockNumber: 5000n,
      }),
      expect.objectContaining({
        to: WALLET,
        asset: null,
        units: 123_456_789n,
        txHash: sig(8002),
        output: `${WALLET}:native`,
        toWallet: true,
        blockNumber: 5001n,
      }),
      expect.objectContaining({ to: key, asset: null, units: 7n, txHash: sig(8004), output: REFERENCE, blockNumber: 5003n }),
    ]);
    expect(read.transfers[2].toWallet).toBeUndefined();
  });

  it('reads a busy wallet at most its budget a step, carries the rest (also across a restart) while the range moves on, each transaction once', async () => {
    // 120 transfers without a reference (slots 6000..6119), then our payment in slot 6120.
    history = [];
    transactions.clear();
    for (let i = 0; i < 120; i++) {
      history.push({ signature: sig(20_000 + i), slot: 6000 + i, err: null });
      transactions.set(sig(20_000 + i), payment(6000 + i, [PAYER, WALLET], [10, 11], null));
    }
    history.push({ signature: sig(29_999), slot: 6120, err: null });
    transactions.set(sig(29_999), payment(6120, [PAYER, WALLET, REFERENCE], [0, 9], null));
    const key = joinPaymentKey(WALLET, REFERENCE);
    const watched: WatchedAddresses = { addresses: new Set([key]), resolve: () => Promise.resolve(new Set([key])), accounts: () => Promise.resolve([WALLET]) };
    const budget = { perWallet: 50, perStep: 400 };
    const first = await new SolanaFollower(url, 'finalized', undefined, budget).scan({ from: 6000n, to: 6130n }, watched, [MINT]);
    // The newest 50 of the range (our payment among them); the wallet's older ones are carried.
    expect(first.transfers).toHaveLength(50);
    expect(first.transfers.find((t) => !t.toWallet)).toMatchObject({ to: key, txHash: sig(29_999), units: 9n });
    // The wallet is behind, and so is its token account, which this step's budget did not reach.
    expect(first.carried!.map((c) => c.account)).toEqual([WALLET, ata]);
    // A restart: a new follower given the stored positions reads on from there, below the new range.
    asked.length = 0;
    const second = await new SolanaFollower(url, 'finalized', undefined, budget).scan({ from: 6131n, to: 6140n }, watched, [MINT], first.carried);
    expect(second.transfers).toEqual([]);
    expect(second.earlier!.transfers).toHaveLength(50);
    expect(second.earlier!.blocks.map((b) => b.number)).toEqual(second.earlier!.transfers.map((t) => t.blockNumber));
    expect(asked.filter((a) => a === 'getTransaction')).toHaveLength(50);
    const third = await new SolanaFollower(url, 'finalized', undefined, budget).scan({ from: 6141n, to: 6150n }, watched, [MINT], second.carried);
    expect(third.earlier!.transfers).toHaveLength(21);
    expect(third.carried).toEqual([]);
    const all = [...first.transfers, ...second.earlier!.transfers, ...third.earlier!.transfers].map((t) => t.txHash);
    expect(new Set(all).size).toBe(121);
  });

  it('asks every listing of a node that has reached the range end, and reads a busy wallet on only below a signature the node knows', async () => {
    // 100 transfers without a reference (slots 8000..8099): two budgets exactly.
    history = [];
    transactions.clear();
    for (let i = 0; i < 100; i++) {
      history.push({ signature: sig(30_000 + i), slot: 8000 + i, err: null });
      transactions.set(sig(30_000 + i), payment(8000 + i, [PAYER, WALLET], [10, 11], null));
    }
    const watched: WatchedAddresses = { addresses: new Set(), resolve: () => Promise.resolve(new Set()), accounts: () => Promise.resolve([WALLET]) };
    const follower = () => new SolanaFollower(url, 'finalized', undefined, { perWallet: 50, perStep: 400 });
    const first = await follower().scan({ from: 8000n, to: 8110n }, watched, [MINT]);
    expect(first.transfers).toHaveLength(50);
    // A node behind the range's end refuses the listing (-32016) rather than answering it short.
    const listings = asked.filter((a) => a.startsWith('getSignaturesForAddress'));
    expect(listings.length).toBeGreaterThan(0);
    for (const listing of listings) expect(listing).toContain('"minContextSlot":8110');

    // The instance answering next has not indexed the signature the wallet's part stopped at: its empty page
    // below it is no end, the step fails, and nothing is passed over.
    const { part } = readPosition(first.carried!.find((c) => c.account === WALLET)!.position);
    unindexed.add(part!.before);
    await expect(follower().scan({ from: 8111n, to: 8120n }, watched, [MINT], first.carried)).rejects.toThrow(/does not know/);
    unindexed.clear();
    const second = await follower().scan({ from: 8111n, to: 8120n }, watched, [MINT], first.carried);
    expect(second.earlier!.transfers).toHaveLength(50);
    // The part's last page was full: the next one below its oldest signature is empty, and the node knows that
    // signature, so the wallet has nothing older in the range: it is read up.
    asked.length = 0;
    const third = await follower().scan({ from: 8121n, to: 8130n }, watched, [MINT], second.carried);
    expect(asked.filter((a) => a === 'getSignatureStatuses')).toHaveLength(1);
    expect(third.earlier!.transfers).toEqual([]);
    expect(third.carried).toEqual([]);
    const all = [...first.transfers, ...second.earlier!.transfers].map((t) => t.txHash);
    expect(new Set(all).size).toBe(100);
  });

  it("gives up a carried part whose signature the node keeps not knowing (its ledger pruned), reporting it lost, so every wallet's step goes on", async () => {
    history = [];
    transactions.clear();
    for (let i = 0; i < 100; i++) {
      history.push({ signature: sig(40_000 + i), slot: 8200 + i, err: null });
      transactions.set(sig(40_000 + i), payment(8200 + i, [PAYER, WALLET], [10, 11], null));
    }
    const watched: WatchedAddresses = { addresses: new Set(), resolve: () => Promise.resolve(new Set()), accounts: () => Promise.resolve([WALLET]) };
    const first = await new SolanaFollower(url, 'finalized', undefined, { perWallet: 50, perStep: 400 }).scan({ from: 8200n, to: 8310n }, watched, [MINT]);
    const { part } = readPosition(first.carried!.find((c) => c.account === WALLET)!.position);
    // The node lost the signature the part stopped at, for good.
    unindexed.add(part!.before);
    try {
      const follower = new SolanaFollower(url, 'finalized', undefined, { perWallet: 50, perStep: 400, unknownBeforeSteps: 3 });
      for (let i = 0; i < 2; i++) await expect(follower.scan({ from: 8311n, to: 8320n }, watched, [MINT], first.carried)).rejects.toThrow(/does not know/);
      const third = await follower.scan({ from: 8311n, to: 8320n }, watched, [MINT], first.carried);
      expect(third.lost).toEqual([{ account: WALLET, before: part!.before }]);
      expect(third.carried!.map((c) => c.account)).not.toContain(WALLET);
    } finally {
      unindexed.clear();
    }
  });

  it("reads a wallet's token account even while junk to the wallet itself fills the wallet's budget every step", async () => {
    history = [];
    transactions.clear();
    // A USDC payment with our reference to the wallet's token account in slot 100; three junk transfers to the wallet in every range.
    history.push({ signature: sig(50_000), slot: 100, err: null });
    transactions.set(sig(50_000), payment(100, [PAYER, ata, REFERENCE], [5, 5], ['0', '5000000']));
    const junk = (from: number) => {
      for (let i = 0; i < 3; i++) {
        history.push({ signature: sig(51_000 + from + i), slot: from + i, err: null });
        transactions.set(sig(51_000 + from + i), payment(from + i, [PAYER, WALLET], [10, 11], null));
      }
    };
    const key = joinPaymentKey(WALLET, REFERENCE);
    const watched: WatchedAddresses = { addresses: new Set([key]), resolve: () => Promise.resolve(new Set([key])), accounts: () => Promise.resolve([WALLET]) };
    const follower = new SolanaFollower(url, 'finalized', undefined, { perWallet: 2, perStep: 10 });
    let carried: Awaited<ReturnType<SolanaFollower['scan']>>['carried'] = [];
    const seen: string[] = [];
    for (let step = 0; step < 4; step++) {
      const from = 101 + step * 10;
      junk(from);
      const read = await follower.scan({ from: BigInt(step === 0 ? 100 : from), to: BigInt(from + 9) }, watched, [MINT], carried);
      carried = read.carried;
      seen.push(...[...read.transfers, ...(read.earlier?.transfers ?? [])].filter((t) => t.asset === MINT).map((t) => t.txHash));
    }
    expect(seen).toEqual([sig(50_000)]);
  });

  it("asks at most an organization's listings a step however many quiet wallets it registered, reading another's payment at once and each of its wallets in turn", async () => {
    history = [{ signature: sig(60_000), slot: 9100, err: null }];
    transactions.clear();
    transactions.set(sig(60_000), payment(9100, [PAYER, WALLET, REFERENCE], [0, 9], null));
    // 200 wallets of one organization with nothing sent to them (a wallet registered after another, each still polled).
    const quiet = Array.from({ length: 200 }, (_, i) =>
      getBase58Decoder().decode(new Uint8Array(32).fill(9).map((b, j) => (j < 2 ? (i >> (8 * j)) & 255 : b))),
    );
    const key = joinPaymentKey(WALLET, REFERENCE);
    const watched: WatchedAddresses = {
      addresses: new Set([key]),
      resolve: () => Promise.resolve(new Set([key])),
      accounts: () => Promise.resolve([...quiet, WALLET]),
      accountOwner: (wallet) => (wallet === WALLET ? 'org_paid' : 'org_many'),
    };
    const follower = new SolanaFollower(url, 'finalized', undefined, { perWallet: 50, perOrganization: 100, perStep: 400, perOrganizationListings: 24 });
    const listedAccounts = () =>
      asked.filter((a) => a.startsWith('getSignaturesForAddress')).map((a) => (JSON.parse(a.slice(a.indexOf(' ') + 1)) as [string])[0]);
    const quietAccounts = new Set<string>();
    for (const w of quiet) for (const account of [w, await follower.tokenAccount(w, MINT)]) quietAccounts.add(account);
    asked.length = 0;
    const first = await follower.scan({ from: 9100n, to: 9101n }, watched, [MINT]);
    // The other organization's payment is read in the first step.
    expect(first.transfers).toEqual([expect.objectContaining({ to: key, txHash: sig(60_000), units: 9n })]);
    expect(listedAccounts().filter((a) => quietAccounts.has(a))).toHaveLength(24);
    // The rest are carried, and every quiet account is asked within the steps 400 accounts need at 24 a step.
    const seen = new Set(listedAccounts().filter((a) => quietAccounts.has(a)));
    let carried = first.carried;
    for (let step = 1; step < 17; step++) {
      asked.length = 0;
      const read = await follower.scan({ from: BigInt(9101 + step), to: BigInt(9101 + step) }, watched, [MINT], carried);
      carried = read.carried;
      const listed = listedAccounts().filter((a) => quietAccounts.has(a));
      expect(listed.length).toBeLessThanOrEqual(24);
      for (const a of listed) seen.add(a);
    }
    expect(seen.size).toBe(quietAccounts.size);
  });

  it('keeps a transaction naming two payment addresses of the wallet as money to the wallet, crediting neither', async () => {
    const SECOND = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
    history = [{ signature: sig(8101), slot: 7000, err: null }];
    transactions.clear();
    transactions.set(sig(8101), payment(7000, [PAYER, WALLET, REFERENCE, SECOND], [0, 50], null));
    const keys = new Set([joinPaymentKey(WALLET, REFERENCE), joinPaymentKey(WALLET, SECOND)]);
    const watched: WatchedAddresses = { addresses: keys, resolve: () => Promise.resolve(keys), accounts: () => Promise.resolve([WALLET]) };
    const read = await new SolanaFollower(url, 'finalized').scan({ from: 7000n, to: 7001n }, watched, [MINT]);
    expect(read.transfers).toEqual([expect.objectContaining({ to: WALLET, units: 50n, output: `${WALLET}:native`, toWallet: true, severalReferences: true })]);
  });

  it('reads a payout: what the destination gained in SOL or in its token account, whether it failed, null when unknown', async () => {
    transactions.set(sig(7001), payment(3000, [PAYER, WALLET], [0, 250], null));
    transactions.set(sig(7002), payment(3001, [PAYER, ata, MINT], [0, 0], ['100', '12000100']));
    transactions.set(sig(7003), payment(3002, [PAYER, WALLET], [0, 0], null, { InstructionError: [0, 'Custom'] }));
    const follower = new SolanaFollower(url, 'finalized');
    expect(await follower.transactionTransfers(sig(7001), WALLET, null)).toEqual({
      blockNumber: 3000n,
      success: true,
      transfers: [{ output: `native:${WALLET}`, formerly: 'native', units: 250n }],
    });
    expect(await follower.transactionTransfers(sig(7002), WALLET, MINT)).toEqual({
      blockNumber: 3001n,
      success: true,
      transfers: [{ output: `spl:${WALLET}:${MINT}`, formerly: 'spl', units: 12_000_000n }],
    });
    expect(await follower.transactionTransfers(sig(7002), WALLET, null)).toEqual({ blockNumber: 3001n, success: true, transfers: [] });
    expect(await follower.transactionTransfers(sig(7003), WALLET, null)).toEqual({ blockNumber: 3002n, success: false, transfers: [] });
    expect(await follower.transactionTransfers(sig(7999), WALLET, null)).toBeNull();
  });

  it('marks a payout the destination signed itself (a swap into SOL it made) as its own, not a payout to it', async () => {
    const own = payment(3003, [WALLET, PAYER], [0, 250], null);
    own.transaction.message.accountKeys = [WALLET, PAYER].map((pubkey) => ({ pubkey, signer: true, writable: true }));
    transactions.set(sig(7004), own);
    const follower = new SolanaFollower(url, 'finalized');
    expect(await follower.transactionTransfers(sig(7004), WALLET, null)).toMatchObject({ byDestination: true, transfers: [{ units: 250n }] });
    // Signed by someone else only: a payout.
    expect(await follower.transactionTransfers(sig(7001), WALLET, null)).not.toHaveProperty('byDestination');
  });

  it('names a payout transfer by its destination, so one transaction paying two wallets holds a transfer for each', async () => {
    // One transaction paying WALLET 250 and OTHER 400 lamports (a merchant batching two refunds).
    const OTHER = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
    const keys = [PAYER, WALLET, OTHER];
    transactions.set(sig(7101), {
      ...payment(3100, keys, [0, 0], null),
      meta: { err: null, preBalances: [1000, 0, 100], postBalances: [345, 250, 500], preTokenBalances: [], postTokenBalances: [] },
    });
    const follower = new SolanaFollower(url, 'finalized');
    expect((await follower.transactionTransfers(sig(7101), WALLET, null))!.transfers).toEqual([
      { output: `native:${WALLET}`, formerly: 'native', units: 250n },
    ]);
    expect((await follower.transactionTransfers(sig(7101), OTHER, null))!.transfers).toEqual([{ output: `native:${OTHER}`, formerly: 'native', units: 400n }]);
  });
});
