// Loaded into every service and CLI process the tests start (`node --require`, see server.ts). A test run starts a few
// hundred such processes from the same build, and each loads about 2,000 CommonJS files (dist/ and node_modules/);
// this keeps two results of that loading for the next process, in the OS temp folder (TEST_LOAD_CACHE_DIR chooses
// another, TEST_LOAD_CACHE=0 turns both off). Only the tests load it: the service and `npm start` run without it,
// and the code that runs is the same.
//
// V8's compiled code of each file (a small version of what the `v8-compile-cache` package does, which could replace
// this part):
// - One cache file per source file and V8 version tag (V8's version and flags, which it checks: the service sets
//   heap flags once its imports have run, and its cluster workers run with other flags). It holds a hash of the
//   source it was made from: a file that changed reads no stale code.
// - A file with no usable cache gets one as soon as it has run; when the process ends, the ones still under the same
//   flags are written again with the functions the process ran since.
// - The main module, ES modules, files with a dynamic import() and anything that does not compile as a CommonJS
//   function go through Node's own loader unchanged.
//
// Where each `require` of the project's files and packages led (Node looks for it file by file, reads package.json
// files and resolves links: a fifth of a start's time):
// - Kept per checkout and per state of its files: the list of files under dist/, package.json, and the installed
//   packages (node_modules/.package-lock.json). A build that adds, removes or moves a file, or an install, starts a
//   new record (and the old one is deleted).
// - Only for a process whose main script is this checkout's dist/, and only requests from a file under dist/ or
//   node_modules/ that lead there; anything else is Node's.
//
// Both cover only this checkout's dist/ and node_modules/: a copy of the service that a test builds in a temporary
// folder loads its own dist/ as usual and leaves no cache behind.
//
// Cache files are written under a temporary name and renamed, so processes running side by side never read half a
// file; a cache that cannot be read or written only means loading as usual.
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { tmpdir } = require('node:os');
const { dirname, join, resolve, sep } = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');

const DIR = process.env.TEST_LOAD_CACHE_DIR || join(tmpdir(), `ipa-test-load-cache-${process.getuid?.() ?? 'user'}`);
const MAGIC = 'ipa-v8-cache-2';
const DYNAMIC_IMPORT = /\bimport\s*\(/;

/** This project: only its dist/ and its packages are cached (not, say, a copy of the service a test builds elsewhere). */
const ROOT = resolve(__dirname, '..', '..');

if (process.env.TEST_LOAD_CACHE !== '0') install();

function install() {
  let kept;
  try {
    mkdirSync(DIR, { recursive: true });
    kept = [join(ROOT, 'dist') + sep, realpathSync(join(ROOT, 'node_modules')) + sep];
  } catch {
    return;
  }
  const ours = (path) => kept.some((folder) => path.startsWith(folder));
  if (ours(resolve(process.argv[1] ?? ''))) cacheResolutions(kept, ours);
  /** Files whose cache this process wrote: written again at the end if the flags are still the ones they were compiled under. */
  const written = [];
  const original = Module.prototype._compile;

  Module.prototype._compile = function compileWithCache(content, filename, format) {
    // The main module keeps Node's own path (it sets up the loader's per-run state); ES modules are Node's too.
    // So does a file with a dynamic import(): V8 drops what Node needs to run one from a script it reads from a cache.
    if (format === 'module' || this.id === '.' || !filename.endsWith('.js') || !ours(filename) || DYNAMIC_IMPORT.test(content))
      return original.call(this, content, filename, format);
    let script;
    let entry;
    try {
      entry = lookup(filename, content);
      script = new vm.Script(Module.wrap(runnable(content)), {
        filename,
        cachedData: entry.data,
      });
    } catch {
      // Not a CommonJS function (ES module syntax in a .js file, a syntax error): Node decides and reports.
      return original.call(this, content, filename, format);
    }
    const wrapper = script.runInThisContext({ displayErrors: true });
    try {
      return wrapper.call(this.exports, this.exports, makeRequire(this), this, filename, dirname(filename));
    } finally {
      if (!entry.data || script.cachedDataRejected) {
        store(entry, script);
        written.push({ entry, script });
      }
    }
  };

  process.once('exit', () => {
    for (const { entry, script } of written) if (tag() === entry.tag) store(entry, script);
  });
}

/** V8's version tag: its version and the flags in force now (V8 refuses code made under other flags). */
const tag = () => String(v8.cachedDataVersionTag());

/** The cache file of `filename` under the current flags, the hash of its source, and the cached code when there is a valid one. */
function lookup(filename, content) {
  const current = tag();
  const file = join(DIR, `${createHash('sha1').update(`${current}\0${filename}`).digest('hex')}.bin`);
  const hash = createHash('sha1').update(content).digest('hex');
  let data;
  try {
    const stored = readFileSync(file);
    const end = stored.indexOf(10);
    if (stored.subarray(0, end).toString() === `${MAGIC} ${hash}`) data = stored.subarray(end + 1);
  } catch {
    // no cache yet
  }
  return { file, hash, tag: current, data };
}

function store({ file, hash }, script) {
  try {
    writeAtomically(file, Buffer.concat([Buffer.from(`${MAGIC} ${hash}\n`), script.createCachedData()]));
  } catch {
    // Not written: the next process compiles this file again.
  }
}

function writeAtomically(file, data) {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, data);
  renameSync(temp, file);
}

/** Remembers where the project's requests led (Module._resolveFilename), for processes of the same project and build. */
function cacheResolutions([dist, modules], keep) {
  let record;
  try {
    const fingerprint = createHash('sha1')
      .update(
        [process.version, ROOT, stamp(join(ROOT, 'package.json')), stamp(join(modules, '.package-lock.json')), stamp(modules), ...listing(dist)].join('\n'),
      )
      .digest('hex');
    const prefix = `resolve-${createHash('sha1').update(ROOT).digest('hex').slice(0, 16)}-`;
    record = { file: join(DIR, `${prefix}${fingerprint}.json`), prefix, added: 0, map: new Map() };
    if (existsSync(record.file)) record.map = new Map(Object.entries(JSON.parse(readFileSync(record.file, 'utf8'))));
  } catch {
    return;
  }
  const original = Module._resolveFilename;
  Module._resolveFilename = function resolveWithCache(request, parent, isMain, options) {
    if (isMain || options || !parent?.filename || !keep(parent.filename) || Module.isBuiltin(request)) return original.apply(this, arguments);
    const key = `${dirname(parent.filename)}\0${request}`;
    const known = record.map.get(key);
    if (known !== undefined) return known;
    const found = original.apply(this, arguments);
    if (typeof found === 'string' && keep(found)) {
      record.map.set(key, found);
      record.added++;
    }
    return found;
  };
  process.once('exit', () => {
    if (!record.added) return;
    try {
      writeAtomically(record.file, JSON.stringify(Object.fromEntries(record.map)));
      // Records of this project's earlier builds are of no more use.
      for (const name of readdirSync(DIR))
        if (name.startsWith(record.prefix) && name.endsWith('.json') && join(DIR, name) !== record.file) unlinkSync(join(DIR, name));
    } catch {
      // Not written: the next process looks its files up again.
    }
  });
}

/** A file's modification time and size ('-' when it is missing). */
function stamp(file) {
  try {
    const { mtimeMs, size } = statSync(file);
    return `${mtimeMs} ${size}`;
  } catch {
    return '-';
  }
}

/** Every path under `dir`, sorted. */
function listing(dir) {
  const out = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      out.push(path);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return out.sort();
}

/** Source that compiles inside the CommonJS wrapper: without a byte-order mark, and a `#!` line kept as a comment. */
function runnable(content) {
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  return text.startsWith('#!') ? `//${text}` : text;
}

/** The `require` a module receives, as Node makes it (require.resolve, .cache, .main, .extensions). */
function makeRequire(mod) {
  const require = (id) => mod.require(id);
  require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
  require.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}
