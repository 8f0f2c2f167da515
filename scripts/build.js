#!/usr/bin/env node
/**
 * The build behind `npm start`, `npm test` and the Dockerfile: src/ and migrations/ transpiled
 * file by file with SWC into dist/ (dist/src/main.js, dist/src/cli/main.js, dist/migrations/<owner>/*.js),
 * in about a second. Type checking is tsc's job (`npm run typecheck`, run first by `npm test` and CI).
 *
 * - TypeScript files: compiled as tsc would for this project (CommonJS, ES2022, legacy decorators
 *   with emitted design-type metadata, which Nest's injection, class-validator, class-transformer
 *   and the OpenAPI document read; `import()` kept as is for ESM-only packages). Unit tests
 *   (`*.spec.ts`) and declaration files are left out.
 * - Every other file (a page's script or style sheet, locale JSON, an ABI, an SVG) is copied to
 *   the same path under dist/, so code finds it beside itself with `join(__dirname, ...)`.
 * - Files in dist/src and dist/migrations that no longer have a source are removed: a deleted
 *   migration must not keep running from an old build.
 */
const { mkdir, readdir, copyFile, rm, writeFile } = require('node:fs/promises');
const { dirname, join, relative, resolve, basename } = require('node:path');

/** The folders built, relative to the project root. */
const ROOTS = ['src', 'migrations'];

const SWC_OPTIONS = {
  swcrc: false,
  configFile: false,
  jsc: {
    parser: { syntax: 'typescript', decorators: true, dynamicImport: true },
    target: 'es2022',
    keepClassNames: true,
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
  },
  // tsc (module nodenext, a CommonJS package) keeps import() as a real dynamic import.
  module: { type: 'commonjs', ignoreDynamic: true },
  sourceMaps: true,
};

const isSkipped = (name) => name.endsWith('.spec.ts') || name.endsWith('.d.ts');

async function walk(dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

async function walkIfExists(dir) {
  try {
    return await walk(dir);
  } catch (e) {
    if (e.code === 'ENOENT') return [];
    throw e;
  }
}

/** Output path of one source file, or null when it is not part of the build. */
function outputOf(file, root, outDir) {
  const rel = relative(root, file);
  const name = basename(file);
  if (isSkipped(name)) return null;
  const target = join(outDir, rel);
  return name.endsWith('.ts') ? target.slice(0, -3) + '.js' : target;
}

async function compile(swc, file, target) {
  const { code, map } = await swc.transformFile(file, { ...SWC_OPTIONS, filename: file, sourceFileName: relative(dirname(target), file) });
  await mkdir(dirname(target), { recursive: true });
  const mapName = `${basename(target)}.map`;
  await writeFile(target, `${code}\n//# sourceMappingURL=${mapName}\n`);
  if (map) await writeFile(`${target}.map`, map);
}

/**
 * Builds `dirs` (relative to `root`) into `outDir`, keeping their paths. Returns how many files
 * were compiled, copied and removed.
 */
async function build({ root = resolve(__dirname, '..'), outDir = join(root, 'dist'), dirs = ROOTS } = {}) {
  const swc = require('@swc/core');
  const stats = { compiled: 0, copied: 0, removed: 0 };
  const wanted = new Set();
  const jobs = [];
  for (const dir of dirs) {
    for (const file of await walkIfExists(join(root, dir))) {
      const target = outputOf(file, root, outDir);
      if (!target) continue;
      if (wanted.has(target)) throw new Error(`two sources build to ${relative(outDir, target)}; rename one of them`);
      wanted.add(target);
      if (file.endsWith('.ts')) {
        wanted.add(`${target}.map`);
        jobs.push(() => compile(swc, file, target).then(() => stats.compiled++));
      } else {
        jobs.push(() =>
          mkdir(dirname(target), { recursive: true })
            .then(() => copyFile(file, target))
            .then(() => stats.copied++),
        );
      }
    }
  }
  // SWC compiles on its own threads: a few files at a time keep both cores busy.
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await jobs[next++]();
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  for (const dir of dirs) {
    for (const file of await walkIfExists(join(outDir, dir))) {
      if (!wanted.has(file)) {
        await rm(file, { force: true });
        stats.removed++;
      }
    }
  }
  return stats;
}

module.exports = { build, ROOTS, SWC_OPTIONS };

if (require.main === module) {
  const started = process.hrtime.bigint();
  build().then(
    (s) => {
      if (process.env.BUILD_VERBOSE) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        process.stderr.write(`built dist/: ${s.compiled} compiled, ${s.copied} copied, ${s.removed} removed in ${ms.toFixed(0)} ms\n`);
      }
    },
    (e) => {
      process.stderr.write(`build failed: ${e && e.stack ? e.stack : e}\n`);
      process.exit(1);
    },
  );
}
