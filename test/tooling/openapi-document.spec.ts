import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { collectExamples, invalidExamples } from '../support/openapi-examples';

/**
 * The committed OpenAPI document (openapi.json) and the TypeScript client's generated types: up to
 * date with the code, clean under Redocly's recommended rules, every example valid against its own
 * schema, and shaped so a generator gives usable types. `npm run openapi` regenerates both files.
 */
const ROOT = resolve(__dirname, '..', '..');
const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
const clientTypes = readFileSync(join(ROOT, 'clients/typescript/src/schema.ts'), 'utf8');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const operations = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((method) => ({ at: `${method.toUpperCase()} ${path}`, op: item[method] })),
);

describe('OpenAPI document (openapi.json)', () => {
  it('is what the code produces now, and so are the client types (npm run openapi)', () => {
    // Built code: `npm test` builds before Jest runs.
    const run = spawnSync(process.execPath, [join(ROOT, 'scripts/openapi.js'), '--check'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('has no error and no warning under Redocly lint (recommended rules, redocly.yaml)', () => {
    const out = execFileSync(process.execPath, [join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', 'openapi.json', '--format', 'json'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 60_000,
    });
    const report = JSON.parse(out);
    expect(report.problems.filter((p: { ignored?: boolean }) => !p.ignored).map((p: any) => `${p.ruleId} ${p.location?.[0]?.pointer}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('has only examples that match their own schemas (objects closed: no undeclared field)', () => {
    const examples = collectExamples(doc);
    expect(examples.length).toBeGreaterThan(300);
    expect(invalidExamples(doc, examples)).toEqual([]);
  });

  it('catches an example that drifts from its schema', () => {
    const drifted = structuredClone(doc);
    const invoiceRead = drifted.paths['/invoices/{id}'].post.responses['200'].content['application/json'].example;
    invoiceRead.data.substatus = 'SOMETHING_ELSE';
    invoiceRead.data.not_a_field = 1;
    drifted.components.schemas.ProductRequestDto.properties.description.example = 42;
    const problems = invalidExamples(drifted).map((p) => `${p.pointer} ${p.errors.join('; ')}`);
    expect(problems).toEqual([
      expect.stringMatching(/ProductRequestDto\/properties\/description\/example .*must be string/),
      expect.stringMatching(
        /~1invoices~1\{id\}\/post\/responses\/200.*\/data\/substatus must be equal to one of the allowed values.*\/data must NOT have unevaluated properties/,
      ),
    ]);
  });

  it('gives every request body an example (a media type example or named examples), checked against its schema above', () => {
    const withoutExample = operations.flatMap(({ at, op }) =>
      Object.entries<any>(op.requestBody?.content ?? {})
        .filter(([, media]) => media.example === undefined && Object.values<any>(media.examples ?? {}).every((e) => e?.value === undefined))
        .map(([type]) => `${at} ${type}`),
    );
    expect(withoutExample).toEqual([]);
    const bodies = operations.filter(({ op }) => op.requestBody).length;
    expect(bodies).toBeGreaterThan(30);
  });

  it('declares servers and the security of every operation (public ones: security [])', () => {
    expect(doc.servers.length).toBeGreaterThan(0);
    for (const { at, op } of operations) expect([at, Array.isArray(op.security)]).toEqual([at, true]);
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/invoices/create'].post.security).toEqual([{ api_key: [] }]);
    expect(doc.paths['/invoices/{id}'].post.security).toEqual([{ api_key: [] }, {}]);
    expect(doc.paths['/admin/organizations'].post.security).toEqual([{ admin_token: [] }]);
  });

  it('requires the envelope data of every 2xx JSON answer', () => {
    for (const { at, op } of operations) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        const schema = response.content?.['application/json']?.schema;
        if (!status.startsWith('2') || !schema?.allOf) continue;
        expect([at, status, schema.allOf[1].required]).toEqual([at, status, expect.arrayContaining(['data'])]);
      }
    }
  });

  it('gives a generator typed fields: no empty-object types, optional fields with defaults stay optional', () => {
    // openapi-typescript writes Record<string, never> for a schema `type: object` without properties:
    // the only one left is the error envelope's `data`, which is always {}.
    const emptyObjects = clientTypes.split('\n').filter((line) => /^\s+\w+\??: Record<string, never>/.test(line));
    expect(emptyObjects).toEqual(['            data: Record<string, never>;']);
    expect(clientTypes).toMatch(/ErrorEnvelopeDto: \{[\s\S]{0,200}data: Record<string, never>;/);
    const block = (name: string) =>
      clientTypes.slice(clientTypes.indexOf(`        ${name}: {`), clientTypes.indexOf('\n        };', clientTypes.indexOf(`        ${name}: {`)));
    expect(block('ListInvoicesRequestDto')).toMatch(/\n\s+offset\?: number;/);
    expect(block('ListInvoicesRequestDto')).toMatch(/\n\s+limit\?: number;/);
    expect(block('ProductRequestDto')).toMatch(/\n\s+description\?: string \| null;/);
    expect(block('ProductRequestDto')).toMatch(/\n\s+image_id\?: string \| null;/);
    expect(block('MetricInputDto')).toMatch(/\n\s+name\?: string \| null;/);
    expect(block('ConfigurationInputDto')).toMatch(/\n\s+ends_at\?: \(string \| null\) \| number;/);
    expect(block('InvoiceDto')).toMatch(/\n\s+substatus: "PAID_OVER" \| .* \| null;/);
  });
});
