/**
 * Reads the modules' manifests (src/modules/<m>/manifest.ts) for tooling that runs without a build:
 * `.dependency-cruiser.cjs` (the module map) and the tooling tests.
 *
 * A manifest is TypeScript holding plain data plus references to its module's own files (the Nest
 * class, the settings loader, the event type lists). This file transpiles it with SWC (already the
 * build's compiler) and runs it with every import answered by a stand-in: the references read as
 * empty lists, the plain data (name, uses, owner, docs, idKinds) as written. So reading a manifest
 * loads neither Nest nor the module, and needs no dist/.
 *
 * Why not a JSON or .cjs manifest: the application needs the references (the Nest class, the loader)
 * type-checked beside the data, and one file per module is the point.
 */
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { transformSync } = require('@swc/core');

/** What every import of a manifest reads as: any member is an empty list. */
const STAND_IN = new Proxy({}, { get: (_target, key) => (key === '__esModule' ? true : Object.freeze([])) });

/** Runs one TypeScript file of plain data (imports stand in as empty lists) and returns its exports. */
function readTsExports(file) {
  return runTs(file, () => STAND_IN);
}

/** Transpiles one TypeScript file with SWC and runs it, its imports answered by `load(specifier)`; its exports. */
function runTs(file, load, exports = {}) {
  const { code } = transformSync(readFileSync(file, 'utf8'), {
    filename: file,
    swcrc: false,
    configFile: false,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  const module = { exports };
  new Function('require', 'module', 'exports', code)(load, module, module.exports);
  return module.exports;
}

/** Runs one manifest file and returns its `manifest` export. */
function readManifest(file) {
  const manifest = readTsExports(file).manifest;
  if (!manifest || typeof manifest.name !== 'string') throw new Error(`${file}: exports no manifest (export const manifest = { name, uses, owner, ... })`);
  return manifest;
}

/**
 * The manifests under `<root>/src/modules/`, by folder name. A folder without a manifest.ts is left
 * out (the boundary rules treat it as an unmapped module); a manifest whose name is not its folder's fails.
 */
function readManifests(root) {
  const dir = join(root, 'src', 'modules');
  const out = {};
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = join(dir, entry.name, 'manifest.ts');
    if (!entry.isDirectory() || !existsSync(file)) continue;
    const manifest = readManifest(file);
    if (manifest.name !== entry.name) throw new Error(`${file}: its name is "${manifest.name}", its folder "${entry.name}"`);
    out[entry.name] = manifest;
  }
  return out;
}

/** The module map (module -> the modules it may use) from the manifests' `uses`. */
function moduleMap(root) {
  return Object.fromEntries(Object.entries(readManifests(root)).map(([name, m]) => [name, [...m.uses]]));
}

module.exports = { readTsExports, runTs, readManifest, readManifests, moduleMap };
