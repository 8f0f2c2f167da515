import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { runTs } = require('../../scripts/module-manifests.cjs') as {
  runTs: (file: string, load: (specifier: string) => unknown, exports?: Record<string, unknown>) => Record<string, unknown>;
};

/**
 * Checks each module's manifest `events` (src/modules/<m>/manifest.ts) against its code, without Nest or
 * a build: the types it declares (`declareEvents(Class, TYPES)` in its files) and the types it emits
 * (`<NAME>_EVENTS['type']`, the definitions its writers hand the outbox).
 *
 * The module's own files are run as data: each is transpiled with SWC and run (scripts/module-manifests.cjs
 * `runTs`) with the kernel's
 * `declareEvents` standing in (it notes the module and the types it is given), its own relative imports
 * run the same way and every other import standing in as empty; so the manifest's references to its
 * `*_EVENT_TYPES` lists read as the lists themselves.
 */

/** What an import outside the module reads as: any member is an empty list (a class, a loader, a type). */
const STAND_IN: Record<string, unknown> = new Proxy({}, { get: (_t, key) => (key === '__esModule' ? true : Object.freeze([])) });

export interface ModuleEvents {
  /** Types the manifest lists (its `events`), in its order. */
  listed: string[];
  /** Types the module declares with `declareEvents`, and the definitions' exported names. */
  declared: string[];
  definitions: string[];
  /** `<NAME>_EVENTS['type']` in its non-test files: `file: NAME['type']` for each use. */
  emitted: Array<{ file: string; constant: string; type: string | null }>;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.ts') && !p.endsWith('.spec.ts') && !p.endsWith('.d.ts'))
    .map((p) => join(dir, p));
}

/** True for a file in the module's own `events/` folder. */
const inEventsFolder = (moduleDir: string, file: string) => /^[\\/]events[\\/]/.test(file.slice(moduleDir.length));

/** Runs a module's TypeScript file (and its relative imports inside the module) with the kernel standing in. */
function runner(moduleDir: string, declared: string[]) {
  const cache = new Map<string, Record<string, unknown>>();
  const kernel = {
    DomainEvent: class {},
    declareEvents: (_cls: unknown, types: readonly string[]) => {
      declared.push(...types);
      return Object.freeze(Object.fromEntries(types.map((t) => [t, Object.freeze({ type: t })])));
    },
  };
  const run = (file: string): Record<string, unknown> => {
    const known = cache.get(file);
    if (known) return known;
    const exports: Record<string, unknown> = {};
    cache.set(file, exports);
    const load = (spec: string): unknown => {
      if (spec.endsWith('/shared/events/event-types') || spec.endsWith('/shared/events/domain-event')) return kernel;
      if (!spec.startsWith('.')) return STAND_IN;
      const target = resolve(dirname(file), spec) + '.ts';
      if (!target.startsWith(moduleDir) || !existsSync(target)) return STAND_IN;
      // Only the module's event files and the manifest are run; its Nest classes and the rest stand in.
      return inEventsFolder(moduleDir, target) ? run(target) : STAND_IN;
    };
    return runTs(file, load, exports);
  };
  return run;
}

/** Reads what a module's manifest lists and what its code declares and emits. */
export function moduleEvents(root: string, name: string): ModuleEvents {
  const moduleDir = join(root, 'src', 'modules', name);
  const declared: string[] = [];
  const run = runner(moduleDir, declared);
  const definitions: string[] = [];
  for (const file of sourceFiles(moduleDir)) {
    if (!inEventsFolder(moduleDir, file)) continue;
    const exports = run(file);
    for (const [key, value] of Object.entries(exports)) {
      if (value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).some((d) => d && typeof d === 'object' && 'type' in d)) {
        definitions.push(key);
      }
    }
  }
  const manifestFile = join(moduleDir, 'manifest.ts');
  const manifest = existsSync(manifestFile) ? (run(manifestFile).manifest as { events?: readonly string[] } | undefined) : undefined;
  const emitted: ModuleEvents['emitted'] = [];
  for (const file of sourceFiles(moduleDir)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\b([A-Z][A-Z0-9_]*_EVENTS)\[\s*(?:'([^']*)'|"([^"]*)"|([^\]]+))\s*\]/g)) {
      emitted.push({ file: file.slice(root.length + 1), constant: m[1], type: m[2] ?? m[3] ?? null });
    }
  }
  return { listed: [...(manifest?.events ?? [])], declared: [...new Set(declared)], definitions, emitted };
}

/** Every mismatch between the modules' manifests and their code, as sentences; empty when they agree. */
export function manifestEventProblems(root: string): string[] {
  const dir = join(root, 'src', 'modules');
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const all = new Map(names.map((n) => [n, moduleEvents(root, n)]));
  const owners = new Map<string, string>();
  for (const [name, m] of all) for (const d of m.definitions) owners.set(d, name);
  const problems: string[] = [];
  for (const [name, m] of all) {
    const listed = new Set(m.listed);
    if (listed.size !== m.listed.length) problems.push(`${name}: its manifest lists an event type twice (${m.listed.join(', ')})`);
    for (const type of listed) if (!m.declared.includes(type)) problems.push(`${name}: its manifest lists ${type}, which the module never declares`);
    for (const type of m.declared) if (!listed.has(type)) problems.push(`${name}: declares ${type}, which its manifest does not list`);
    for (const use of m.emitted) {
      const owner = owners.get(use.constant);
      if (owner === undefined) continue; // not an event definition (another constant ending in _EVENTS)
      if (owner !== name) {
        problems.push(`${name}: ${use.file} emits ${use.constant}[${use.type ?? '...'}], an event of the ${owner} module`);
      } else if (use.type !== null && !listed.has(use.type)) {
        problems.push(`${name}: ${use.file} emits ${use.type}, which its manifest does not list`);
      }
    }
  }
  return problems;
}
