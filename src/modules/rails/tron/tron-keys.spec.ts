import { secp256k1 } from '@noble/curves/secp256k1';
import { mnemonicToSeedSync } from '@scure/bip39';
import { HDKey } from '@scure/bip32';
import { decodeTron, hexToTron, isTronAddress, tronToHex } from './tron-address';
import { TronKeys, tronAddressOfPublicKey } from './tron-keys';

// Published vectors:
// - Trezor firmware's Tron address unit test (its data from the Binance JavaScript SDK): private key
//   8d59...f941 has the address TY72iA3SBtrds3QLYsS7LwYfkzXwAXCRWT.
// - Tether's WDK Tron wallet tests (tetherto/wdk-wallet-tron): the mnemonic "cook voyage ... abuse" has at
//   m/44'/195'/0'/0/0 the public key 03ebdf...03b0 and the address TXngH8bVadn9ZWtKBgjKQcqN1GsZ7A1jcb.
// - Tether USD on Tron: TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t is 41a614f803b6fd780986a42c78ec9c7f77e6ded13c.
const TREZOR_PRIVATE_KEY = '8d596057e510b14cbb9bf24f88803a6d6dbd138dd303a62b175b9e6cc0f3f941';
const TREZOR_ADDRESS = 'TY72iA3SBtrds3QLYsS7LwYfkzXwAXCRWT';
const WDK_MNEMONIC = 'cook voyage document eight skate token alien guide drink uncle term abuse';
const WDK_PUBLIC_KEY = '03ebdf0c06e1523a5931e7593e3ac231f5a123b898eb6c02af61aa83b32f8603b0';
const WDK_ADDRESS = 'TXngH8bVadn9ZWtKBgjKQcqN1GsZ7A1jcb';
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDT_HEX = '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c';

const ROOT = HDKey.fromMasterSeed(mnemonicToSeedSync(WDK_MNEMONIC));
const ACCOUNT = ROOT.derive("m/44'/195'/0'");
const XPUB = ACCOUNT.publicExtendedKey;

describe('Tron addresses', () => {
  it('writes the address of a public key as Tron does (published private key -> address pair)', () => {
    const publicKey = secp256k1.getPublicKey(Buffer.from(TREZOR_PRIVATE_KEY, 'hex'), true);
    expect(tronAddressOfPublicKey(publicKey)).toBe(TREZOR_ADDRESS);
    // The uncompressed form gives the same address.
    expect(tronAddressOfPublicKey(secp256k1.getPublicKey(Buffer.from(TREZOR_PRIVATE_KEY, 'hex'), false))).toBe(TREZOR_ADDRESS);
  });

  it('turns a base58 contract into the 20-byte hex of the JSON-RPC wire, and back', () => {
    expect(tronToHex(USDT)).toBe(USDT_HEX);
    expect(hexToTron(USDT_HEX)).toBe(USDT);
    expect(hexToTron(USDT_HEX.toUpperCase().replace('0X', '0x'))).toBe(USDT);
    expect(decodeTron(USDT)?.[0]).toBe(0x41);
  });

  it.each([
    ['a changed character (checksum)', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u'],
    ['an EVM address', '0xa614f803b6fd780986a42c78ec9c7f77e6ded13c'],
    ['a Bitcoin address', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'],
    ['empty', ''],
  ])('refuses %s as a Tron address', (_, text) => {
    expect(isTronAddress(text)).toBe(false);
    expect(() => tronToHex(text)).toThrow();
  });
});

describe('TronKeys', () => {
  const keys = new TronKeys();

  it("derives the published first address of a mnemonic from its account xpub (m/44'/195'/0')", () => {
    const child = HDKey.fromExtendedKey(XPUB).deriveChild(0).deriveChild(0);
    expect(Buffer.from(child.publicKey!).toString('hex')).toBe(WDK_PUBLIC_KEY);
    expect(keys.deriveAddress(XPUB, 0)).toBe(WDK_ADDRESS);
    expect(keys.checkAccountKey(` ${XPUB}\n`)).toEqual({ ok: true, key: { text: XPUB, firstAddress: WDK_ADDRESS, fingerprint: keys.fingerprint(XPUB) } });
  });

  it('derives the receive chain m/.../0/i, every address a distinct valid T address', () => {
    const addresses = [0, 1, 2, 3].map((i) => keys.deriveAddress(XPUB, i));
    expect(new Set(addresses).size).toBe(4);
    addresses.forEach((a, i) => {
      expect(isTronAddress(a)).toBe(true);
      expect(a).toBe(tronAddressOfPublicKey(ROOT.derive(`m/44'/195'/0'/0/${i}`).publicKey!));
    });
    expect(() => keys.deriveAddress(XPUB, -1)).toThrow(RangeError);
  });

  it('fingerprints the public key and chain code with the family (another export of the key is the same key)', () => {
    const parsed = HDKey.fromExtendedKey(XPUB);
    const other = new HDKey({ publicKey: parsed.publicKey!, chainCode: parsed.chainCode!, depth: 3, index: 7, parentFingerprint: 1234 }).publicExtendedKey;
    expect(other).not.toBe(XPUB);
    expect(keys.fingerprint(other)).toBe(keys.fingerprint(XPUB));
    expect(keys.fingerprint(ROOT.derive("m/44'/195'/1'").publicExtendedKey)).not.toBe(keys.fingerprint(XPUB));
  });

  it.each([
    ['an xprv', () => ACCOUNT.privateExtendedKey, 'never a private key'],
    ['a hex private key', () => TREZOR_PRIVATE_KEY, 'never a private key'],
    ['a mnemonic', () => WDK_MNEMONIC, 'never a recovery phrase'],
    ['a master key (depth 0)', () => ROOT.publicExtendedKey, 'depth 0'],
    ['an address-level key (depth 5)', () => ROOT.derive("m/44'/195'/0'/0/0").publicExtendedKey, 'depth 5'],
    [
      'a zpub-style key',
      () => 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
      'starting with xpub',
    ],
    ['a broken xpub', () => XPUB.slice(0, -1) + (XPUB.endsWith('a') ? 'b' : 'a'), 'not a valid extended public key'],
  ])('refuses %s without quoting it', (_, text, problem) => {
    const check = keys.checkAccountKey(text());
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.problem).toContain(problem);
    expect(check.problem).not.toContain(text());
  });

  it('has no payment URI (Tron has no standard) and shows addresses as they are', () => {
    expect(keys.paymentUri({ address: WDK_ADDRESS, chain: '728126428', units: 1n, asset: null })).toBeNull();
    expect(keys.displayAddress(WDK_ADDRESS)).toBe(WDK_ADDRESS);
  });
});
