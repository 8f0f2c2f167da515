#!/usr/bin/env node
/**
 * `npm run docs:settings`: writes `.env.example` and the README's settings table from the settings'
 * docs: the kernel's (`PLATFORM_SETTINGS`, src/shared/config/settings-docs.ts) and each module's
 * (`settings` in src/modules/<m>/manifest.ts). With `--check` it writes nothing and exits 1 naming
 * the files that are out of date (test/tooling/settings-docs.spec.ts runs the same check).
 *
 * Layout: the sections of `SETTINGS_SECTIONS` in that order (then any other section, in the order met),
 * within a section the kernel's settings, then the modules' (by folder name), each in its own order.
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { readManifests, readTsExports } = require('./module-manifests.cjs');

const EXAMPLE_HEADER = [
  '# Every environment variable the service reads, set to its default. An empty value means unset.',
  '# Copy to .env, change what you need, and start with `node --env-file=.env dist/src/main.js`',
  "# (or point docker compose's env_file at it). test/tooling/env-example.spec.ts checks this file",
  '# against the code: a variable the code reads must be listed here, with a comment line above it.',
  '# Written by `npm run docs:settings` from the settings docs (src/shared/config/settings-docs.ts and each',
  "# module's manifest.ts): edit those, not this file.",
];
const TABLE_START = '<!-- settings table: written by `npm run docs:settings` from src/shared/config/settings-docs.ts and the module manifests -->';
const TABLE_END = '<!-- end of settings table -->';

/** Every documented setting, in the order the docs list them. */
function settings(root) {
  const kernel = readTsExports(join(root, 'src', 'shared', 'config', 'settings-docs.ts'));
  const all = [...kernel.PLATFORM_SETTINGS.map((s) => ({ ...s, owner: 'the kernel' }))];
  for (const m of Object.values(readManifests(root))) all.push(...(m.settings ?? []).map((s) => ({ ...s, owner: m.name })));
  const seen = new Map();
  for (const s of all) {
    if (seen.has(s.name)) throw new Error(`setting ${s.name} is documented by both ${seen.get(s.name)} and ${s.owner}`);
    seen.set(s.name, s.owner);
  }
  const sections = [...kernel.SETTINGS_SECTIONS];
  for (const s of all) if (!sections.includes(s.section)) sections.push(s.section);
  return sections.flatMap((section) => all.filter((s) => s.section === section));
}

/** The two outputs: `.env.example`, and the README with its settings table rewritten. */
function render(root) {
  const list = settings(root);
  const example = [...EXAMPLE_HEADER];
  let section = null;
  for (const s of list) {
    if (s.section !== section) example.push('', `# --- ${(section = s.section)} ---`);
    example.push(...s.description.split('\n').map((line) => `# ${line}`), `${s.name}=${s.default}`);
  }
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md: the settings table's markers are missing (${TABLE_START} ... ${TABLE_END})`);
  const rows = list.filter((s) => s.readme).map((s) => `| ${s.readme.label ?? `\`${s.name}\``} | ${s.readme.default} | ${s.readme.meaning} |`);
  const table = [TABLE_START, '', '| Variable | Default | Meaning |', '|---|---|---|', ...rows, '', ''].join('\n');
  return { '.env.example': `${example.join('\n')}\n`, 'README.md': readme.slice(0, start) + table + readme.slice(end) };
}

/** The files whose text differs from what `render` makes. */
function stale(root) {
  return Object.entries(render(root))
    .filter(([file, text]) => readFileSync(join(root, file), 'utf8') !== text)
    .map(([file]) => file);
}

if (require.main === module) {
  const root = resolve(__dirname, '..');
  if (process.argv.includes('--check')) {
    const out = stale(root);
    if (out.length) {
      process.stderr.write(`out of date (run npm run docs:settings): ${out.join(', ')}\n`);
      process.exit(1);
    }
  } else for (const [file, text] of Object.entries(render(root))) writeFileSync(join(root, file), text);
}

module.exports = { settings, render, stale };
