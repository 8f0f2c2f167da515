import { HDKey } from 'viem/accounts';
import { mnemonicToSeedSync } from '@scure/bip39';
import { EvmKeys } from './evm-keys';

// Hardhat's test mnemonic; its node funds m/44'/60'/0'/0/i for i = 0..19.
const MNEMONIC = 'test test test test test test test test test test test junk';
const ACCOUNT = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC)).derive("m/44'/60'/0'");
const XPUB = ACCOUNT.publicExtendedKey;
const HARDHAT_ACCOUNTS = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
];

describe('EvmKeys', () => {
  const keys = new EvmKeys();

  it("derives the Hardhat node's accounts from the account xpub of its mnemonic", () => {
    expect(XPUB).toBe('xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP');
    HARDHAT_ACCOUNTS.forEach((address, i) => expect(keys.displayAddress(keys.deriveAddress(XPUB, i))).toBe(address));
    expect(keys.checkAccountKey(` ${XPUB}\n`)).toEqual({
      ok: true,
      key: { text: XPUB, firstAddress: HARDHAT_ACCOUNTS[0], fingerprint: keys.fingerprint(XPUB) },
    });
  });

  it('fingerprints the public key and chain code, not the parent fingerprint or child number of the export', () => {
    const parsed = HDKey.fromExtendedKey(XPUB);
    const reexported = new HDKey({ publicKey: parsed.publicKey!, chainCode: parsed.chainCode!, depth: 3, index: 7, parentFingerprint: 0x01020304 });
    expect(reexported.publicExtendedKey).not.toBe(XPUB);
    const check = keys.checkAccountKey(reexported.publicExtendedKey);
    expect(check.ok && check.key.fingerprint).toBe(keys.fingerprint(XPUB));
    expect(keys.fingerprint(XPUB)).toMatch(/^[0-9a-f]{64}$/);
    // Another account of the same wallet is another key.
    expect(keys.fingerprint(HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC)).derive("m/44'/60'/1'").publicExtendedKey)).not.toBe(keys.fingerprint(XPUB));
  });

  const refusals: Array<[string, string, string]> = [
    ['the xprv of the same account', ACCOUNT.privateExtendedKey, 'never a private key'],
    ['a hex private key', '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', 'never a private key'],
    ['a hex private key without 0x', 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', 'never a private key'],
    ['the mnemonic', MNEMONIC, 'never a recovery phrase'],
    ['a broken checksum', XPUB.slice(0, -1) + (XPUB.endsWith('P') ? 'Q' : 'P'), 'checksum'],
    ['a truncated key', XPUB.slice(0, 60), 'checksum'],
    ['something else', 'hello', 'starting with xpub'],
    ['a master xpub (depth 0)', HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC)).publicExtendedKey, 'depth 0'],
    ['an address-level xpub (depth 5)', ACCOUNT.derive('m/0/0').publicExtendedKey, 'depth 5'],
  ];
  it.each(refusals)('refuses %s without quoting it', (_, text, message) => {
    const check = keys.checkAccountKey(text);
    expect(check.ok).toBe(false);
    const problem = (check as { problem: string }).problem;
    expect(problem).toContain(message);
    expect(problem).not.toContain(text.slice(4, 20));
  });

  it('writes EIP-681 payment URIs for the coin and for tokens', () => {
    const address = HARDHAT_ACCOUNTS[1].toLowerCase();
    expect(keys.paymentUri({ address, chain: '1', units: 1_500_000_000_000_000_000n, asset: null })).toBe(
      'ethereum:0x70997970C51812dc3A010C7d01b50e0d17dc79C8@1?value=1500000000000000000',
    );
    expect(keys.paymentUri({ address, chain: '31337', units: 25_494_902n, asset: '0xdac17f958d2ee523a2206206994597c13d831ec7' })).toBe(
      'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@31337/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=25494902',
    );
  });
});
