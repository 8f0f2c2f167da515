import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { railAdapters } from '../../src/modules/rails/rail-adapters';
import { liveRailsFinding, loadRailsConfig } from '../../src/modules/rails/rails.config';
import { PROVIDER_CATALOG } from '../../src/modules/providers/domain/catalog';
import { environmentOf, interpolate, isApp, loadCompose } from './compose-file';
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
    expect(config.liveNetworks.sort()).toEqual(['bitcoin', 'ethereum', 'litecoin', 'polygon', 'tron']);
    expect(liveRailsFinding(config, true)).toBeNull();
    // Each variable it names is needed: without one, the start is refused naming it.
    const without = { ...env };
    delete without[names[0]];
    expect(() => loadRailsConfig(without, railAdapters(PROVIDER_CATALOG))).toThrow(`environment variable ${names[0]} is not set`);
  });
});

/** The `${NAME}` references of a text, sorted, once each. */
const references = (text: string) => [...new Set([...text.matchAll(/\$\{([A-Za-z_]\w*)/g)].map((m) => m[1]))].sort();

/** The compose overrides of docs/going-live.md (a yaml block, or written by a rehearsal block), each with the chains file it goes with. */
function overrides(): Array<{ override: string; chains: string }> {
  const text = readFileSync(join(ROOT, 'docs', 'going-live.md'), 'utf8');
  const mainnet = jsonBlocks().find((block) => Object.keys((JSON.parse(block) as { live?: object }).live ?? {}).length > 0)!;
  const found = [...text.matchAll(/```yaml\n([\s\S]*?)\n```/g)].map((m) => ({ override: m[1], chains: mainnet }));
  // In the rehearsal, each block writing deploy/chains.json then writes the override for it.
  for (const [, block] of text.matchAll(/<!-- going-live-rehearsal -->\n```bash\n([\s\S]*?)\n```/g)) {
    const chains = /cat > deploy\/chains\.json <<'EOF'\n([\s\S]*?)\nEOF/.exec(block);
    const override = /cat > docker-compose\.override\.yml <<'EOF'\n([\s\S]*?)\nEOF/.exec(block);
    expect(Boolean(chains)).toBe(Boolean(override));
    if (chains && override) found.push({ override: override[1], chains: chains[1] });
  }
  return found;
}

describe('docs/going-live.md: the compose overrides', () => {
  it("give every replica of docker-compose.yml exactly the variables their chains file references, each from the operator's environment", () => {
    const replicas = Object.entries(loadCompose().services)
      .filter(([, s]) => isApp(s))
      .map(([name]) => name)
      .sort();
    const found = overrides();
    expect(found.length).toBeGreaterThanOrEqual(3);
    for (const { override, chains } of found) {
      const compose = loadCompose(override);
      expect(Object.keys(compose.services).sort()).toEqual(replicas);
      const needed = references(chains);
      expect(needed.length).toBeGreaterThan(0);
      for (const name of replicas) {
        const env = environmentOf(compose.services[name]);
        expect([name, Object.keys(env).sort()]).toEqual([name, needed]);
        // Each is the operator's value of the same name, and compose stops (naming it) when it is not set.
        for (const variable of needed) {
          expect(interpolate(env[variable]!, { [variable]: 'value' })).toBe('value');
          expect(() => interpolate(env[variable]!, {})).toThrow(`${variable} is required`);
        }
      }
    }
  });
});
