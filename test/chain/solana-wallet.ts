import {
  AccountRole,
  type Address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Blockhash,
  type Transaction,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintEncoder,
  getTokenEncoder,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
  AccountState,
} from '@solana-program/token';
import type { SolanaRpcServer } from './solana-rpc-server';

/** A payer's wallet as the tests use it: a key pair with SOL to pay fees (and what it sends). */
export async function fundedWallet(bed: SolanaRpcServer, sol = 100n): Promise<KeyPairSigner> {
  const wallet = await generateKeyPairSigner();
  bed.airdrop(wallet.address, sol * 1_000_000_000n);
  return wallet;
}

/** A token mint written straight into the bed's accounts (decimals as USDC's and USDT's: 6). */
export async function createMint(bed: SolanaRpcServer, decimals = 6): Promise<Address> {
  const mint = (await generateKeyPairSigner()).address;
  const authority = (await generateKeyPairSigner()).address;
  const data = getMintEncoder().encode({ mintAuthority: authority, supply: 10n ** 15n, decimals, isInitialized: true, freezeAuthority: null });
  bed.svm.setAccount({
    address: mint,
    data: new Uint8Array(data),
    executable: false,
    lamports: lamports(bed.svm.minimumBalanceForRentExemption(BigInt(data.length))),
    programAddress: TOKEN_PROGRAM_ADDRESS,
    space: BigInt(data.length),
  });
  return mint;
}

export async function tokenAccountOf(owner: Address, mint: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

/** Gives a wallet tokens: its associated token account written with that balance (as if it had received them). */
export async function giveTokens(bed: SolanaRpcServer, owner: Address, mint: Address, amount: bigint): Promise<void> {
  const data = getTokenEncoder().encode({
    mint,
    owner,
    amount,
    delegate: null,
    state: AccountState.Initialized,
    isNative: null,
    delegatedAmount: 0n,
    closeAuthority: null,
  });
  bed.svm.setAccount({
    address: await tokenAccountOf(owner, mint),
    data: new Uint8Array(data),
    executable: false,
    lamports: lamports(bed.svm.minimumBalanceForRentExemption(BigInt(data.length))),
    programAddress: TOKEN_PROGRAM_ADDRESS,
    space: BigInt(data.length),
  });
}

/** Solana Pay: each reference is added to the transfer instruction as a read-only, non-signer account, in order. */
function withReferences<T extends Instruction>(instruction: T, references: readonly string[]): T {
  return { ...instruction, accounts: [...(instruction.accounts ?? []), ...references.map((r) => ({ address: r as Address, role: AccountRole.READONLY }))] };
}

async function signed(bed: SolanaRpcServer, payer: KeyPairSigner, instructions: Instruction[]): Promise<Transaction> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: bed.latestBlockhash() as Blockhash, lastValidBlockHeight: 1_000_000n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return signTransactionMessageWithSigners(message);
}

/** A SOL transfer's instruction as a wallet builds it from a Solana Pay request (the references on it). */
function solTransferInstruction(payer: KeyPairSigner, to: string, lamportsSent: bigint, references: readonly string[] = []): Instruction {
  return withReferences(getTransferSolInstruction({ source: payer, destination: to as Address, amount: lamportsSent }), references);
}

/**
 * An SPL transfer's instructions as a wallet builds them from a Solana Pay request with `spl-token`: the
 * recipient's associated token account created if missing (idempotent), then TransferChecked from the payer's
 * own associated token account, the references on it.
 */
async function tokenTransferInstructions(
  payer: KeyPairSigner,
  to: string,
  mint: Address,
  units: bigint,
  references: readonly string[] = [],
  decimals = 6,
): Promise<Instruction[]> {
  const destination = await tokenAccountOf(to as Address, mint);
  const create = getCreateAssociatedTokenIdempotentInstruction({ payer, ata: destination, owner: to as Address, mint });
  const transfer = getTransferCheckedInstruction({
    source: await tokenAccountOf(payer.address, mint),
    mint,
    destination,
    authority: payer,
    amount: units,
    decimals,
  });
  return [create, withReferences(transfer, references)];
}

/** A SOL transfer as a wallet builds it from a Solana Pay request (the System transfer last, the references on it). */
export function solTransfer(
  bed: SolanaRpcServer,
  payer: KeyPairSigner,
  to: string,
  lamportsSent: bigint,
  references: readonly string[] = [],
): Promise<Transaction> {
  return signed(bed, payer, [solTransferInstruction(payer, to, lamportsSent, references)]);
}

/** An SPL transfer as a wallet builds it from a Solana Pay request with `spl-token` (tokenTransferInstructions), signed. */
export async function tokenTransfer(
  bed: SolanaRpcServer,
  payer: KeyPairSigner,
  to: string,
  mint: Address,
  units: bigint,
  references: readonly string[] = [],
  decimals = 6,
): Promise<Transaction> {
  return signed(bed, payer, await tokenTransferInstructions(payer, to, mint, units, references, decimals));
}

/**
 * An SPL transfer from `from` to `to` in a transaction whose fee `feePayer` pays and signs: with the recipient as
 * fee payer, a transaction the recipient made itself (as a swap that hands it the token would be).
 */
export async function tokenTransferPaidBy(
  bed: SolanaRpcServer,
  feePayer: KeyPairSigner,
  from: KeyPairSigner,
  to: string,
  mint: Address,
  units: bigint,
): Promise<Transaction> {
  return signed(bed, feePayer, await tokenTransferInstructions(from, to, mint, units));
}

/** One payment of a batch: SOL (`lamports`) or `units` of an SPL `mint` (6 decimals), to a wallet. */
export type BatchedPayment = { to: string; lamports: bigint } | { to: string; mint: Address; units: bigint };

/**
 * One transaction paying several wallets, as a wallet app batches payouts: each payment's instructions in
 * order (a SOL transfer, or an SPL transfer with the recipient's token account created if missing), signed
 * once by the payer.
 */
export async function batchedTransfer(bed: SolanaRpcServer, payer: KeyPairSigner, payments: readonly BatchedPayment[]): Promise<Transaction> {
  const instructions: Instruction[] = [];
  for (const p of payments) {
    if ('lamports' in p) instructions.push(solTransferInstruction(payer, p.to, p.lamports));
    else instructions.push(...(await tokenTransferInstructions(payer, p.to, p.mint, p.units)));
  }
  return signed(bed, payer, instructions);
}
