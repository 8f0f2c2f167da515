import { randomInt } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mnemonicToSeedSync } from '@scure/bip39';
import { HDKey, mnemonicToAccount } from 'viem/accounts';

/** Hardhat's test mnemonic; its node funds m/44'/60'/0'/0/i for i = 0..19. */
export const MNEMONIC = 'test test test test test test test test test test test junk';
const ROOT_KEY = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));

/** Account-level keys (m/44'/60'/n') of the test mnemonic. */
export const accountKey = (n: number) => ROOT_KEY.derive(`m/44'/60'/${n}'`);
export const XPUB_0 = accountKey(0).publicExtendedKey;
export const XPRV_0 = accountKey(0).privateExtendedKey;
/** Hardhat's default accounts #0..#4: m/44'/60'/0'/0/i. */
export const HARDHAT_ACCOUNTS = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
];
/** Private key of Hardhat's account #0. */
export const HARDHAT_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

/** Writes a CHAINS_FILE and returns its path. */
export function writeChainsFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'ipa-chains-'));
  const file = join(dir, 'chains.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

/** The checksummed address m/44'/60'/<account>'/0/<index> of the test mnemonic. */
export const addressAt = (account: number, index: number) => mnemonicToAccount(MNEMONIC, { accountIndex: account, addressIndex: index }).address;

/** A random start per test process: the processes of one run (sharing a service) never meet on an account. */
let nextAccount = 10 + randomInt(2 ** 30);
/**
 * A fresh account of the test mnemonic for each organization: a key registered by another
 * organization is refused, and one registered again continues after its highest index, so tests
 * sharing one service use keys of their own.
 */
export function freshAccount(): { account: number; xpub: string } {
  const account = nextAccount++;
  return { account, xpub: accountKey(account).publicExtendedKey };
}
