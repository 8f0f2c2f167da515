import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * What the service reads from its environment, found in src/, and the variables .env.example lists;
 * env-example.spec.ts keeps the two equal, compose.spec.ts checks docker-compose.yml against them.
 *
 * .env.example (at the repository root) must list every environment variable the service reads,
 * set to its default, each with a comment line above it. "Reads" is found in the source itself:
 * - every UPPER_CASE property of an exported `...Config` class (the classes that validate settings
 *   at start-up: AppConfig, FilesConfig, and any a module adds);
 * - every `process.env.NAME`, `process.env['NAME']`, `env.NAME` or `env['NAME']`;
 * - every `process.env[CONSTANT]` whose constant is a string literal in the same file (any other
 *   computed read fails: name the variable so it can be checked).
 */
export const ROOT = resolve(__dirname, '..', '..');
export const EXAMPLE = join(ROOT, '.env.example');

/** Variables the code reads that are not settings of the service. */
const NOT_SETTINGS: Record<string, string> = {
  NODE_OPTIONS: "Node's own options: read only to leave the operator's heap flags alone",
  IPA_WORKER_DATABASE_URL: 'set by the service itself for its cluster workers',
  PATH: "the system's search path, passed on to the embedded PostgreSQL server (which gets no other variable of ours)",
};

export interface Read {
  name: string;
  where: string;
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** The environment variables one source file reads, and computed reads it could not name. */
export function scanSource(text: string, file: string): { reads: Read[]; unnamed: string[] } {
  const reads: Read[] = [];
  const unnamed: string[] = [];
  const at = (i: number) => `${file}:${lineOf(text, i)}`;
  const literal = /\b(?:process\.)?env(?:\??\.([A-Z][A-Z0-9_]*)\b|\[\s*(['"`])([A-Z][A-Z0-9_]*)\2\s*\])/g;
  for (const m of text.matchAll(literal)) reads.push({ name: m[1] ?? m[3], where: at(m.index) });
  const computed = /\bprocess\.env\[\s*([^\]'"`]+?)\s*\]/g;
  for (const m of text.matchAll(computed)) {
    const constant = new RegExp(`\\bconst\\s+${m[1].replace(/[^\w$]/g, '')}\\s*=\\s*(['"\`])([A-Z][A-Z0-9_]*)\\1`).exec(text);
    if (/^[\w$]+$/.test(m[1]) && constant) reads.push({ name: constant[2], where: at(m.index) });
    else unnamed.push(`${at(m.index)}: process.env[${m[1]}]`);
  }
  const configClass = /^export class (\w+Config)\b[^{]*\{\n([\s\S]*?)^\}/gm;
  for (const m of text.matchAll(configClass)) {
    const bodyStart = m.index + m[0].indexOf('{\n') + 2;
    for (const p of m[2].matchAll(/^ {2}(?:@.*?\)\s+)?(?:readonly\s+)?([A-Z][A-Z0-9_]*)[?!]?\s*[:=]/gm)) {
      reads.push({ name: p[1], where: `${at(bodyStart + p.index + p[0].lastIndexOf(p[1]))} (${m[1]})` });
    }
  }
  return { reads, unnamed };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

export function serviceReads(): { reads: Map<string, string[]>; unnamed: string[] } {
  const reads = new Map<string, string[]>();
  const unnamed: string[] = [];
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const found = scanSource(readFileSync(file, 'utf8'), relative(ROOT, file));
    unnamed.push(...found.unnamed);
    for (const r of found.reads) {
      if (r.name in NOT_SETTINGS) continue;
      reads.set(r.name, [...(reads.get(r.name) ?? []), r.where]);
    }
  }
  return { reads, unnamed };
}

export interface ExampleVariable {
  name: string;
  value: string;
  line: number;
  comment: string | null;
}

/** NAME=value lines (a value may be quoted), each with the comment line right above it. */
export function parseExample(text: string): ExampleVariable[] {
  const lines = text.split('\n');
  const out: ExampleVariable[] = [];
  lines.forEach((line, i) => {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) return;
    const raw = m[2].trim();
    const value = /^(["'])(.*)\1$/.exec(raw)?.[2] ?? raw;
    const above = i > 0 ? /^#\s*(.+)$/.exec(lines[i - 1]) : null;
    out.push({ name: m[1], value, line: i + 1, comment: above ? above[1] : null });
  });
  return out;
}

export function exampleEnv(): Record<string, string> {
  return Object.fromEntries(parseExample(readFileSync(EXAMPLE, 'utf8')).map((v) => [v.name, v.value]));
}

/** The variables .env.example lists: the settings the service knows (the spec in this folder keeps the list equal to what src/ reads). */
export function knownVariables(): Set<string> {
  return new Set(parseExample(readFileSync(EXAMPLE, 'utf8')).map((v) => v.name));
}
