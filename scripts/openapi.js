#!/usr/bin/env node
/**
 * `npm run openapi`: writes the OpenAPI document (openapi.json at the repository root) and the
 * TypeScript client's types generated from it (clients/typescript/src/schema.ts).
 * `npm run openapi -- --check` writes nothing and exits 1 when either committed file differs from
 * what the code produces now (CI runs it through test/tooling/openapi-document.spec.ts).
 *
 * The document comes from the built service (dist/, `npm run build` first; `npm run openapi` does
 * it): the application is assembled in Nest's preview mode, which reads every controller and DTO
 * but instantiates no provider, so no database is opened. It is the same document the service
 * serves at /openapi.json (test/e2e/foundation/openapi-document.e2e-spec.ts compares them).
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const DOCUMENT_FILE = join(ROOT, 'openapi.json');
const SCHEMA_FILE = join(ROOT, 'clients', 'typescript', 'src', 'schema.ts');

const SCHEMA_HEADER = ['/**', ' * Generated from openapi.json by `npm run openapi` (openapi-typescript). Do not edit by hand.', ' */', '', ''].join('\n');

async function buildDocument() {
  require('reflect-metadata');
  const { NestFactory } = require('@nestjs/core');
  const pino = require('pino');
  const { AppModule } = require(join(ROOT, 'dist/src/app.module'));
  const { loadConfig } = require(join(ROOT, 'dist/src/shared/config/app-config'));
  const { buildOpenApi } = require(join(ROOT, 'dist/src/docs'));
  // Default settings, whatever this shell's environment holds: the document does not depend on them.
  // The URL is never dialled (preview mode opens no connection).
  const config = loadConfig({ DATABASE_URL: 'postgres://unused.invalid:5432/unused' }, 'cli');
  const module = AppModule.forRoot({ config, databaseUrl: config.DATABASE_URL, logger: pino({ level: 'silent' }) });
  const app = await NestFactory.create(module, { preview: true, logger: false, abortOnError: false });
  try {
    return buildOpenApi(app);
  } finally {
    await app.close();
  }
}

async function buildSchema(document) {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  // defaultNonNullable off: a request field with a default (limit, offset, ...) stays optional.
  const ast = await openapiTS(document, { defaultNonNullable: false });
  return SCHEMA_HEADER + astToString(ast);
}

async function main() {
  const check = process.argv.includes('--check');
  const document = await buildDocument();
  const outputs = [
    [DOCUMENT_FILE, JSON.stringify(document, null, 2) + '\n'],
    [SCHEMA_FILE, await buildSchema(document)],
  ];
  const stale = [];
  for (const [file, text] of outputs) {
    let current = null;
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      current = null;
    }
    if (current === text) continue;
    stale.push(file);
    if (!check) writeFileSync(file, text);
  }
  const names = stale.map((f) => f.slice(ROOT.length + 1)).join(', ');
  if (check && stale.length) {
    process.stderr.write(`Out of date with the code: ${names}. Run \`npm run openapi\` and commit the result.\n`);
    process.exit(1);
  }
  process.stdout.write(check ? 'openapi.json and the client types are up to date\n' : stale.length ? `wrote ${names}\n` : 'nothing changed\n');
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
