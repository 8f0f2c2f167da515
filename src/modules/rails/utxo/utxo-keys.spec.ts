import { mnemonicToSeedSync } from '@scure/bip39';
import { HDKey } from '@scure/bip32';
import { descriptorChecksum } from './descriptor-checksum';
import { coinAmount, UtxoKeys } from './utxo-keys';
import { UTXO_NETWORKS } from './utxo-networks';

// The mnemonic of the BIP-44/49/84 test vectors.
const SEED = mnemonicToSeedSync('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
const account = (path: string, pub: number, priv: number) => HDKey.fromMasterSeed(SEED, { public: pub, private: priv }).derive(path);
const XPUB = { pub: 0x0488b21e, priv: 0x0488ade4 };
const ZPUB = { pub: 0x04b24746, priv: 0x04b2430c };
const TPUB = { pub: 0x043587cf, priv: 0x04358394 };
const UPUB = { pub: 0x044a5262, priv: 0x044a4e28 };

const bitcoin = new UtxoKeys(UTXO_NETWORKS.bitcoin, 'main');
const bitcoinTest = new UtxoKeys(UTXO_NETWORKS.bitcoin, 'test');
const litecoin = new UtxoKeys(UTXO_NETWORKS.litecoin, 'main');
const litecoinRegtest = new UtxoKeys(UTXO_NETWORKS.litecoin, 'regtest');
const dogecoin = new UtxoKeys(UTXO_NETWORKS.dogecoin, 'main');
const bitcoinCash = new UtxoKeys(UTXO_NETWORKS.bitcoin_cash, 'main');

/** A descriptor with the checksum its wallet would append. */
const withChecksum = (script: string) => `${script}#${descriptorChecksum(script)}`;

const firstTwo = (keys: UtxoKeys, text: string) => {
  const check = keys.checkAccountKey(text);
  if (!check.ok) throw new Error(check.problem);
  return [check.key.firstAddress, keys.deriveAddress(check.key.text, 1)];
};

describe('UtxoKeys: published vectors', () => {
  const bip84 = account("m/84'/0'/0'", ZPUB.pub, ZPUB.priv).publicExtendedKey;
  const bip44 = account("m/44'/0'/0'", XPUB.pub, XPUB.priv).publicExtendedKey;

  it('BIP-84: the zpub of m/84h/0h/0h gives P2WPKH bc1q addresses', () => {
    expect(bip84).toBe('zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs');
    expect(firstTwo(bitcoin, bip84)).toEqual(['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g']);
  });

  it('BIP-44: the xpub of m/44h/0h/0h gives P2PKH 1... addresses', () => {
    expect(bip44).toBe('xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj');
    expect(firstTwo(bitcoin, bip44)[0]).toBe('1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA');
  });

  it('BIP-49: the upub of m/49h/1h/0h gives P2WPKH-in-P2SH testnet addresses', () => {
    expect(firstTwo(bitcoinTest, account("m/49'/1'/0'", UPUB.pub, UPUB.priv).publicExtendedKey)[0]).toBe('2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2');
  });

  it('Litecoin: Ltub (P2PKH), Mtub (P2WPKH in P2SH) and zpub (P2WPKH) account keys', () => {
    expect(firstTwo(litecoin, 'Ltub2ZB5hCtgn7gqVPzt93yqG19A2VGPR8QubaJh1dagpMoJWFBmH2LX4uwRm5ihBQGKHiJLKaKMgfARozBUaBbSeR5A8VxkU5vCZcsFu9G3HHk')).toEqual([
      'LTVdcw8fdTTK4TcebTZ4jiiCbvTXaRxZNh',
      'LS8s8ZwXitwqevEfwuwRWqLh9KmRpmNQ68',
    ]);
    expect(firstTwo(litecoin, 'Mtub2te8vVn8SuKDHSDsM2ZKMNZnGCErRV1f4cPiT74fCYZF5d4jpAmzHtjJ7Jdn9Ca5yqxL4xk36AN8NBZjbuhFV4aV7tB6swT9mqdkK3GfP45')).toEqual([
      'MDgdAHtaQ66jKhWwNHoXQbS1fDmj9hFASV',
      'MG9uHmJCDGFo3KtaMGX6Zgm3M3NqjvhfdE',
    ]);
    expect(firstTwo(litecoin, 'zpub6qa4qbPy1N6DMjqmrsGfEPxxdNCcrqKNuPvWx3SJKykBhdEmSPtgDUiK7s43K8cisLNbiLZcTCtsTmX7afR5WfRMYJ72CrTHRTDRscRS7rW')).toEqual([
      'ltc1qwttt6kexkl8s3vczz3deqcn34elu0t6hmdfu6a',
      'ltc1qhy3neezv728lr0yyafa8mhsrcm93t0xg8ggcsc',
    ]);
  });

  it('Litecoin regtest: rltc1 bech32 addresses from a tpub/vpub, and the same key as the testnet', () => {
    const vpub = account("m/84'/1'/0'", 0x045f1cf6, 0x045f18bc).publicExtendedKey;
    const [first] = firstTwo(litecoinRegtest, vpub);
    expect(first).toMatch(/^rltc1q[02-9ac-hj-np-z]{38}$/);
    // The same key as a descriptor names the same address.
    const tpub = account("m/84'/1'/0'", TPUB.pub, TPUB.priv).publicExtendedKey;
    expect(firstTwo(litecoinRegtest, withChecksum(`wpkh([73c5da0a/84h/1h/0h]${tpub}/0/*)`))[0]).toBe(first);
  });

  it('Bitcoin Cash: CashAddr P2PKH from the xpub of m/44h/145h/0h', () => {
    const [first] = firstTwo(bitcoinCash, account("m/44'/145'/0'", XPUB.pub, XPUB.priv).publicExtendedKey);
    expect(first).toBe('bitcoincash:qqyx49mu0kkn9ftfj6hje6g2wfer34yfnq5tahq3q6');
  });

  it('Dogecoin: dgub (and xpub) of m/44h/3h/0h give D... addresses', () => {
    const dgub = account("m/44'/3'/0'", 0x02facafd, 0x02fac398).publicExtendedKey;
    expect(dgub.startsWith('dgub')).toBe(true);
    const [first] = firstTwo(dogecoin, dgub);
    expect(first).toBe('DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC');
    expect(firstTwo(dogecoin, account("m/44'/3'/0'", XPUB.pub, XPUB.priv).publicExtendedKey)[0]).toBe(first);
  });

  it('output descriptors name their address type, with or without origin and /0/*', () => {
    const xpub84 = account("m/84'/0'/0'", XPUB.pub, XPUB.priv).publicExtendedKey;
    expect(firstTwo(bitcoin, `wpkh(${xpub84})`)[0]).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(firstTwo(bitcoin, `wpkh([73c5da0a/84'/0'/0']${xpub84}/0/*)`)[0]).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(firstTwo(bitcoin, withChecksum(`wpkh([73c5da0a/84h/0h/0h]${xpub84}/<0;1>/*)`))[0]).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(firstTwo(bitcoin, `pkh([73c5da0a/44h/0h/0h]${account("m/44'/0'/0'", XPUB.pub, XPUB.priv).publicExtendedKey}/0/*)`)[0]).toBe(
      '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA',
    );
    expect(firstTwo(bitcoinTest, `sh(wpkh(${account("m/49'/1'/0'", TPUB.pub, TPUB.priv).publicExtendedKey}/0/*))`)[0]).toBe(
      '2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2',
    );
  });

  it('fingerprints the key, not its version: a zpub and the xpub of one account are one key', () => {
    const zpub = account("m/84'/0'/0'", ZPUB.pub, ZPUB.priv).publicExtendedKey;
    const xpub = account("m/84'/0'/0'", XPUB.pub, XPUB.priv).publicExtendedKey;
    expect(bitcoin.fingerprint(zpub)).toBe(bitcoin.fingerprint(xpub));
    expect(bitcoin.fingerprint(zpub)).toMatch(/^[0-9a-f]{64}$/);
    expect(bitcoin.fingerprint(zpub)).not.toBe(bitcoin.fingerprint(account("m/84'/0'/1'", ZPUB.pub, ZPUB.priv).publicExtendedKey));
  });
});

describe('UtxoKeys: refusals', () => {
  const zprv = account("m/84'/0'/0'", ZPUB.pub, ZPUB.priv).privateExtendedKey;
  const xpub = account("m/44'/0'/0'", XPUB.pub, XPUB.priv).publicExtendedKey;
  const tpub = account("m/44'/1'/0'", TPUB.pub, TPUB.priv).publicExtendedKey;
  const ltub = 'Ltub2ZB5hCtgn7gqVPzt93yqG19A2VGPR8QubaJh1dagpMoJWFBmH2LX4uwRm5ihBQGKHiJLKaKMgfARozBUaBbSeR5A8VxkU5vCZcsFu9G3HHk';
  const dgub = account("m/44'/3'/0'", 0x02facafd, 0x02fac398).publicExtendedKey;
  const zpub = account("m/84'/0'/0'", ZPUB.pub, ZPUB.priv).publicExtendedKey;
  const exported = withChecksum(`wpkh([73c5da0a/84h/0h/0h]${zpub}/0/*)`);
  const cases: Array<[string, UtxoKeys, string, string]> = [
    ['a zprv', bitcoin, zprv, 'never a private key'],
    ['a tprv', bitcoinTest, account("m/44'/1'/0'", TPUB.pub, TPUB.priv).privateExtendedKey, 'never a private key'],
    ['an Ltpv', litecoin, account("m/44'/2'/0'", 0x019da462, 0x019d9cfe).privateExtendedKey, 'never a private key'],
    ['a WIF private key', bitcoin, 'KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJwYvP98617', 'never a private key'],
    ['a WIF key in a descriptor', bitcoin, 'wpkh(KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJwYvP98617)', 'never a private key'],
    [
      'an xprv in a descriptor',
      bitcoin,
      `wpkh([73c5da0a/84h/0h/0h]${account("m/84'/0'/0'", XPUB.pub, XPUB.priv).privateExtendedKey}/0/*)`,
      'never a private key',
    ],
    ['a hex private key', bitcoin, 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', 'never a private key'],
    ['a recovery phrase', litecoin, 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', 'never a recovery phrase'],
    ['a mainnet key in test mode (regtest)', litecoinRegtest, ltub, 'is a mainnet key'],
    ['a testnet key on main', bitcoin, tpub, 'is a testnet key'],
    ['a Litecoin key for Bitcoin', bitcoin, ltub, 'another coin (Litecoin)'],
    ['a Dogecoin key for Litecoin', litecoin, dgub, 'another coin (Dogecoin)'],
    ['a zpub for Dogecoin (no segwit)', dogecoin, zpub, 'another coin'],
    ['a wpkh descriptor for Bitcoin Cash', bitcoinCash, `wpkh(${xpub})`, 'no segwit addresses'],
    ['a broken checksum', bitcoin, xpub.slice(0, -1) + (xpub.endsWith('j') ? 'k' : 'j'), 'checksum'],
    ['an address-level key (depth 5)', bitcoin, account("m/44'/0'/0'/0/0", XPUB.pub, XPUB.priv).publicExtendedKey, 'depth 5'],
    ['a change-chain descriptor', bitcoin, `wpkh(${xpub}/1/*)`, 'receive chain'],
    ['another script type', bitcoin, `tr(${xpub})`, 'output descriptor'],
    ['a descriptor whose script type was changed after export', bitcoin, exported.replace('wpkh(', 'pkh('), 'no longer matches its checksum'],
    ['a descriptor whose origin path was changed after export', bitcoin, exported.replace('/84h/', '/49h/'), 'no longer matches its checksum'],
    ['a descriptor whose checksum has one character changed', bitcoin, exported.slice(0, -1) + (exported.endsWith('q') ? 'p' : 'q'), 'no longer matches'],
    ['a descriptor with a checksum of 7 characters', bitcoin, exported.slice(0, -1), 'is not 8 characters'],
    ['a descriptor with a checksum outside the alphabet', bitcoin, exported.slice(0, -1) + 'b', 'is not 8 characters'],
    [
      'a private key in a descriptor with a wrong checksum',
      bitcoin,
      `wpkh(${account("m/84'/0'/0'", XPUB.pub, XPUB.priv).privateExtendedKey})#qqqqqqqq`,
      'never a private key',
    ],
  ];
  it.each(cases)('refuses %s without quoting it', (_, keys, text, message) => {
    const check = keys.checkAccountKey(text);
    expect(check.ok).toBe(false);
    const problem = (check as { problem: string }).problem;
    expect(problem).toContain(message);
    expect(problem).not.toContain(text.slice(10, 30));
  });
});

describe('UtxoKeys: descriptor checksums', () => {
  const zpub = account("m/84'/0'/0'", ZPUB.pub, ZPUB.priv).publicExtendedKey;
  const script = `wpkh([73c5da0a/84h/0h/0h]${zpub}/0/*)`;

  it('takes a descriptor with its checksum, or with none, as the same key', () => {
    const withSum = bitcoin.checkAccountKey(withChecksum(script));
    const without = bitcoin.checkAccountKey(script);
    expect(withSum.ok && without.ok).toBe(true);
    if (!withSum.ok || !without.ok) return;
    expect(withSum.key.text).toBe(withChecksum(script));
    expect(withSum.key.firstAddress).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(withSum.key.fingerprint).toBe(without.key.fingerprint);
  });

  it('still derives from a stored descriptor whose checksum was never checked (taken before checksums were)', () => {
    const stored = `${script}#qqqqqqqq`;
    expect(bitcoin.checkAccountKey(stored).ok).toBe(false);
    expect(bitcoin.deriveAddress(stored, 0)).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
  });
});

describe('UtxoKeys: BIP21 payment URIs', () => {
  it("writes the network's scheme and the amount in coins (8 decimals, no trailing zeros)", () => {
    expect(bitcoin.paymentUri({ address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', chain: 'main', units: 150_000_000n, asset: null })).toBe(
      'bitcoin:bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu?amount=1.5',
    );
    expect(litecoin.paymentUri({ address: 'LTVdcw8fdTTK4TcebTZ4jiiCbvTXaRxZNh', chain: 'main', units: 1n, asset: null })).toBe(
      'litecoin:LTVdcw8fdTTK4TcebTZ4jiiCbvTXaRxZNh?amount=0.00000001',
    );
    expect(dogecoin.paymentUri({ address: 'DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC', chain: 'main', units: 4_200_000_000n, asset: null })).toBe(
      'dogecoin:DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC?amount=42',
    );
    expect(bitcoinCash.paymentUri({ address: 'bitcoincash:qqyx49mu0kkn9ftfj6hje6g2wfer34yfnq5tahq3q6', chain: 'main', units: 12_345_678n, asset: null })).toBe(
      'bitcoincash:qqyx49mu0kkn9ftfj6hje6g2wfer34yfnq5tahq3q6?amount=0.12345678',
    );
    expect(coinAmount(0n)).toBe('0');
    expect(coinAmount(2_100_000_000_000_000n)).toBe('21000000');
  });
});
