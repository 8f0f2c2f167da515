import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Request bodies refuse every field their DTO does not validate, and the OpenAPI document closes their
 * schemas (additionalProperties: false). The two lists must be the same: a documented field without a
 * class-validator decorator would be refused as unknown, and a validated field the document leaves out
 * would be accepted although the document says it is refused. Reads the built DTOs (dist/, `npm test`
 * builds first; in a child process, as Nest's packages are ES modules) and the committed openapi.json.
 */
const ROOT = resolve(__dirname, '..', '..');
const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));

/** Documentation-only shapes (one per variant) of a class that validates them all. */
const DOCUMENTS_VARIANT_OF: Record<string, string> = { ProductItemDoc: 'InvoiceItemInputDto', PaymentIntentItemDoc: 'InvoiceItemInputDto' };

/** Every class exported by a built DTO or controller file, with the properties class-validator validates. */
const LIST_VALIDATED = `
require('reflect-metadata');
const { readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { getMetadataStorage } = require('class-validator');
const files = (dir) => readdirSync(dir).flatMap((name) => {
  const path = join(dir, name);
  return statSync(path).isDirectory() ? files(path) : /\\.(dto|controller)\\.js$/.test(name) ? [path] : [];
});
const out = {};
for (const file of files(join(process.cwd(), 'dist/src/modules'))) {
  for (const value of Object.values(require(file))) {
    if (typeof value !== 'function' || !value.name) continue;
    out[value.name] = [...new Set(getMetadataStorage().getTargetValidationMetadatas(value, '', true, false).map((m) => m.propertyName))];
  }
}
process.stdout.write(JSON.stringify(out));
`;

function validatedFields(): Record<string, string[]> {
  const run = spawnSync(process.execPath, ['-e', LIST_VALIDATED], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as Record<string, string[]>;
}

describe('request body fields: validated = documented', () => {
  const classes = validatedFields();
  const validated = (name: string) => new Set(classes[name]);
  const closed = Object.entries<any>(doc.components.schemas).filter(([, schema]) => schema.additionalProperties === false);

  it('finds the closed request schemas and their classes', () => {
    expect(closed.length).toBeGreaterThanOrEqual(25);
    const missing = closed.map(([name]) => DOCUMENTS_VARIANT_OF[name] ?? name).filter((name) => !classes[name]);
    expect(missing).toEqual([]);
  });

  it('documents every field a body DTO accepts, and accepts every field it documents', () => {
    const drift: string[] = [];
    for (const [name, schema] of closed) {
      const accepted = validated(DOCUMENTS_VARIANT_OF[name] ?? name);
      const documented = Object.keys(schema.properties);
      for (const field of documented)
        if (!accepted.has(field)) drift.push(`${name}.${field}: documented, but refused as unknown (no class-validator decorator)`);
      if (DOCUMENTS_VARIANT_OF[name]) continue;
      for (const field of accepted) if (!documented.includes(field)) drift.push(`${name}.${field}: accepted, but missing from the document`);
    }
    expect(drift).toEqual([]);
  });

  it('leaves the free maps open (metadata takes any keys)', () => {
    expect(doc.components.schemas.CreateInvoiceRequestDto.properties.metadata.additionalProperties).toEqual({ type: 'string' });
    expect(doc.components.schemas.ProductRequestDto.properties.metadata.additionalProperties).toEqual({ type: 'string' });
  });
});
