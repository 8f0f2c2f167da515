import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './env-scan';

/**
 * The rails module is the whole chain family: its adapters (src/modules/rails/<family>/) hold every
 * chain encoding and every choice made by family. Outside rails/, no source file imports a chain-encoding
 * library (address and key encodings: @scure/base, @scure/btc-signer, @scure/bip32, viem's address
 * utilities) and none names a family ('evm', 'utxo', 'tron', 'solana') as a string: a module that needs a chain
 * fact asks rails through a query. Docs are not source; a string that is not a family (a coin's id at a
 * rates source) is listed in NOT_A_FAMILY with its reason.
 */
const RAILS = 'src/modules/rails/';
const ENCODING_PACKAGES = /^(@scure\/base|@scure\/btc-signer|@scure\/bip32|@solana\/kit|@solana\/addresses|@solana-program\/[a-z-]+)(\/|$)/;
/** viem's address and key utilities (viem's other parts, e.g. a JSON-RPC client, are not chain encodings of an address). */
const VIEM_ADDRESS_UTILS = new Set([
  'getAddress',
  'isAddress',
  'isAddressEqual',
  'checksumAddress',
  'publicKeyToAddress',
  'privateKeyToAddress',
  'HDKey',
  'mnemonicToAccount',
  'hdKeyToAccount',
]);
const FAMILIES = /(['"`])(evm|utxo|tron|solana)\1/g;
/** file -> why its family-looking string is no family. */
const NOT_A_FAMILY: Record<string, string> = {
  'src/modules/rates/domain/coingecko-answer.ts':
    "'tron' and 'solana' are CoinGecko's ids of the TRX and SOL coins (a rates source's names), not the chain families",
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path) : /\.(ts|js|mjs|cjs)$/.test(e.name) ? [path] : [];
  });
}

/** What a source text breaks of the rule, each finding with its line. */
export function findings(path: string, text: string): string[] {
  const out: string[] = [];
  const line = (index: number) => text.slice(0, index).split('\n').length;
  for (const m of text.matchAll(/import\s+(type\s+)?([\s\S]*?)\s+from\s+['"]([^'"]+)['"]/g)) {
    const [, typeOnly, names, from] = m;
    if (ENCODING_PACKAGES.test(from)) out.push(`${path}:${line(m.index)} imports ${from}`);
    if (!typeOnly && /^viem(\/|$)/.test(from)) {
      const used = [...names.matchAll(/\b([A-Za-z_$][\w$]*)\b/g)].map((n) => n[1]).filter((n) => VIEM_ADDRESS_UTILS.has(n));
      if (used.length) out.push(`${path}:${line(m.index)} imports viem's ${used.join(', ')}`);
    }
  }
  for (const m of text.matchAll(/require\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    if (ENCODING_PACKAGES.test(m[1])) out.push(`${path}:${line(m.index)} requires ${m[1]}`);
  }
  if (!(path in NOT_A_FAMILY)) for (const m of text.matchAll(FAMILIES)) out.push(`${path}:${line(m.index)} names the family ${m[0]}`);
  return out;
}

/** Every finding in a checkout's src/ outside rails/. */
export function scan(root: string): string[] {
  return files(join(root, 'src'))
    .map((file) => relative(root, file).split('\\').join('/'))
    .filter((path) => !path.startsWith(RAILS))
    .flatMap((path) => findings(path, readFileSync(join(root, path), 'utf8')));
}

describe('chain families stay inside rails/', () => {
  it('no source outside rails/ imports a chain-encoding library or names a chain family', () => {
    expect(scan(ROOT)).toEqual([]);
  });

  it('each exception is still needed (a file that no longer names a family leaves the list)', () => {
    for (const path of Object.keys(NOT_A_FAMILY)) expect([...readFileSync(join(ROOT, path), 'utf8').matchAll(FAMILIES)].length).toBeGreaterThan(0);
  });

  it('catches what the rule is about (the checker itself)', () => {
    expect(findings('src/modules/x/a.ts', "import { base58check } from '@scure/base';")).toEqual(['src/modules/x/a.ts:1 imports @scure/base']);
    expect(findings('src/modules/x/a.ts', "import { HDKey } from '@scure/bip32';")).toHaveLength(1);
    expect(findings('src/modules/x/a.ts', "\nimport { getAddress, isAddress } from 'viem';")).toEqual([
      "src/modules/x/a.ts:2 imports viem's getAddress, isAddress",
    ]);
    expect(findings('src/modules/x/a.ts', "import { HDKey } from 'viem/accounts';")).toHaveLength(1);
    expect(findings('src/modules/x/a.ts', "import { createPublicClient, http } from 'viem';")).toEqual([]);
    expect(findings('src/modules/x/a.ts', "if (rail.family === 'utxo') return 1;")).toEqual(["src/modules/x/a.ts:1 names the family 'utxo'"]);
    expect(findings('src/modules/x/a.ts', 'type F = "evm" | `tron`;')).toHaveLength(2);
    expect(findings('src/modules/x/a.ts', "const label = 'Tron network'; const e = 'evmos';")).toEqual([]);
    expect(findings('src/modules/x/a.ts', "import { isAddress } from '@solana/kit';\nconst f = 'solana';")).toHaveLength(2);
    expect(findings('src/modules/x/a.ts', "import { findAssociatedTokenPda } from '@solana-program/token';")).toHaveLength(1);
  });
});
