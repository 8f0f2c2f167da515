import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { railAdapters } from '../../src/modules/rails/rail-adapters';
import { liveRailsFinding, loadRailsConfig } from '../../src/modules/rails/rails.config';
import { PROVIDER_CATALOG } from '../../src/modules/providers/domain/catalog';
import { ROOT } from './env-scan';

/** The JSON blocks of docs/going-live.md, as written. */
function jsonBlocks(): string[] {
  const text = readFileSync(join(ROOT, 'docs', 'going-live.md'), 'utf8');
  return [...text.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => m[1]);
}

describe('docs/going-live.md', () => {
  it("loads its mainnet chains file through the service's loader, with the variables it references, and starts production", () => {
    const mainnet = jsonBlocks().find((block) => Object.keys((JSON.parse(block) as { live?: object }).live ?? {}).length > 0);
    expect(mainnet).toBeDefined();
    const file = join(mkdtempSync(join(tmpdir(), 'going-live-')), 'chains.json');
    writeFileSync(file, mainnet!);
    const names = [...mainnet!.matchAll(/\$\{([A-Z_]+)\}/g)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(0);
    const env: Record<string, string> = { CHAINS_FILE: file };
    for (const name of names) env[name] = name.endsWith('_AUTH') ? 'watcher:secret' : 'https://node.example.com/key';
    const config = loadRailsConfig(env, railAdapters(PROVIDER_CATALOG));
    expect(config.liveNetworks.sort()).toEqual(['bitcoin', 'ethereum', 'litecoin', 'polygon']);
    expect(liveRailsFinding(config, true)).toBeNull();
    // Each variable it names is needed: without one, the start is refused naming it.
    const without = { ...env };
    delete without[names[0]];
    expect(() => loadRailsConfig(without, railAdapters(PROVIDER_CATALOG))).toThrow(`environment variable ${names[0]} is not set`);
  });
});
