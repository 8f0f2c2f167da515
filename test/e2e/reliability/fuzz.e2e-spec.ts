import fc from 'fast-check';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { kindOf, MAKERS } from '../../support/makers';
import { exampleBody, OpenApiDocument, Operation, operations, resolve } from '../../support/openapi';
import { ADMIN_TOKEN, errorLines } from '../../support/server';

/**
 * Property-based fuzzing of every operation in /openapi.json: request bodies (the document's
 * examples mutated, values generated from the schemas, and hostile shapes: wrong types, null, huge
 * strings, deep nesting, numbers with exponents or beyond any float, negative numbers, unicode,
 * arrays for objects), query strings and path ids. Every answer must be below 500, and every 4xx
 * must be the error envelope, with `validator` naming the field whenever a field is at fault.
 * FUZZ_SEED reproduces a run; FUZZ_RUNS changes its size (default 10,000 requests).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Date.now() % 2_147_483_647;
const CONCURRENCY = 8;

/** Errors about the request as a whole (no single field at fault). */
const WHOLE_REQUEST_CODES = new Set([
  'malformed_json',
  'malformed_body',
  'unsupported_content_type',
  'unsupported_encoding',
  'malformed_multipart',
  'payload_too_large',
  'invalid_api_key',
  'missing_api_key',
  'unauthorized',
  'forbidden',
  'route_not_found',
  'rate_limited',
  'idempotency_conflict',
  'malformed_path',
]);

/** A JSON number written as is (exponents, more digits than a double holds). */
class Raw {
  constructor(readonly text: string) {}
}

function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

const NUMBER_TEXTS = [
  '1e400',
  '-1e400',
  '1e-400',
  '1E+2',
  '-0',
  '0.1e1',
  '2.5e-7',
  '123456789012345678901234567890.123456789012345678901234567890',
  '9007199254740993',
  '-9007199254740993',
  '1.0',
  '0.0000000000000000000000000000000000001',
  '100000000000000000000000000000000000000000000000000000000000000000000000000000000000',
];
const NASTY_STRINGS = [
  '',
  ' ',
  '-1',
  '1e3',
  '-1e3',
  'NaN',
  'Infinity',
  '0x10',
  '１２３',
  '١٢٣',
  '\u0000',
  '\u202e',
  '💸',
  'null',
  'true',
  '[]',
  '{}',
  '2026-02-30',
  '2026-13-01 25:61:61',
  '9999-12-31 23:59:59',
  '0000-01-01',
  '-000001-01-01T00:00:00Z',
  'invoice_00000000-0000-0000-0000-000000000000',
  "'; DROP TABLE invoices; --",
  '%s%n%x',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  'USD',
  'BITCOIN',
  'prov_card_usd',
  'PAYMENT_INTENT',
  'PRODUCT',
  'COMPLETED',
  'a@b',
  'x'.repeat(256),
  '\ud800',
  'ß'.repeat(100),
];

const hugeString = fc.constantFrom(1_001, 10_001, 300_000, 1_100_000).map((n) => 'ẞ'.repeat(Math.floor(n / 3)) + 'a'.repeat(n % 3));
const deep = fc
  .tuple(fc.integer({ min: 10, max: 20_000 }), fc.boolean())
  .map(([n, arrays]) => new Raw(arrays ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n)));

const scalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.integer({ min: -1_000_000, max: -1 }),
  fc.double(),
  fc.maxSafeInteger(),
  fc.constantFrom(...NUMBER_TEXTS.map((t) => new Raw(t))),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(...NASTY_STRINGS),
);

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 2, arbitrary: fc.array(scalar, { maxLength: 4 }) },
  { weight: 2, arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), scalar, { maxKeys: 4 }) },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.constant(new Raw('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}')) },
);

/** Values shaped by a schema (types right, values anything the schema allows or its examples). */
function fromSchema(doc: OpenApiDocument, raw: any, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  if (!schema || depth > 5) return hostile;
  const alternatives = schema.oneOf ?? schema.anyOf ?? schema.allOf;
  if (alternatives) return fc.oneof(...alternatives.map((s: any) => fromSchema(doc, s, depth + 1)));
  const example = schema.example !== undefined ? [fc.constant(schema.example)] : [];
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'object': {
      const props = schema.properties ?? {};
      if (!Object.keys(props).length) return fc.oneof(...example, fc.dictionary(fc.string({ maxLength: 12 }), scalar, { maxKeys: 5 }));
      const shapes: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, s] of Object.entries(props)) shapes[name] = fromSchema(doc, s, depth + 1);
      return fc.record(shapes, { requiredKeys: (schema.required ?? []).filter((k: string) => k in props) });
    }
    case 'array':
      return fc.array(fromSchema(doc, schema.items, depth + 1), { maxLength: 3 });
    case 'string':
      return fc.oneof(...example, fc.string({ maxLength: 30 }), fc.constantFrom('1', '0.5', '-1', '2026-11-21', '2026-11-21 10:00:00'));
    case 'integer':
    case 'number':
      return fc.oneof(...example, fc.integer({ min: -5, max: 1000 }), fc.constantFrom(...NUMBER_TEXTS.slice(0, 6).map((t) => new Raw(t))));
    case 'boolean':
      return fc.boolean();
    default:
      return fc.oneof(...example, scalar);
  }
}

/** Every place in a JSON value, as key paths. */
function placesOf(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => placesOf(v, [...at, i], out));
  else if (value && typeof value === 'object' && !(value instanceof Raw)) for (const [k, v] of Object.entries(value)) placesOf(v, [...at, k], out);
  return out;
}

function mutate(base: unknown, mutations: [number, number, unknown][]): unknown {
  let value = structuredClone(base);
  for (const [where, how, replacement] of mutations) {
    const places = placesOf(value);
    const path = places[where % places.length];
    if (!path.length) {
      value = replacement;
      continue;
    }
    let parent: any = value;
    for (const k of path.slice(0, -1)) parent = parent[k];
    const last = path[path.length - 1];
    if (how === 0 && !Array.isArray(parent)) delete parent[last];
    else if (how === 1 && parent && typeof parent === 'object' && !Array.isArray(parent)) parent[`unknown_${where}`] = replacement;
    else parent[last] = replacement;
  }
  return value;
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

const HOSTILE_IDS = [
  'x',
  'invoice_not-a-uuid',
  'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
  'payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01',
  'product_zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
  'file_00000000-0000-0000-0000-000000000000',
  '00000000-0000-0000-0000-000000000000',
  '..',
  '%00',
  '%E0%A4%A',
  'a'.repeat(5000),
  '💸',
  "1' OR '1'='1",
  '-1',
  '1e400',
  'null',
];

function requestsFor(doc: OpenApiDocument, op: Operation, realIds: Record<string, string>, keys: { test: string; live: string }): fc.Arbitrary<FuzzRequest> {
  const params: any[] = op.operation.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const isAdmin = op.path.startsWith('/admin');
  const secured = (op.operation.security ?? []).length > 0;
  const payerToo = (op.operation.security ?? []).some((s: object) => Object.keys(s).length === 0);
  const jsonContent = op.operation.requestBody?.content?.['application/json'];
  const example = exampleBody(doc, op);

  const idArb = (name: string) => {
    const real = realIds[kindOf(op.path, name)];
    return fc.oneof(
      ...(real ? [{ weight: 3, arbitrary: fc.constant(encodeURIComponent(real)) }] : []),
      { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_IDS).map((v) => (v.startsWith('%') ? v : encodeURIComponent(v))) },
      { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent) },
    );
  };
  const pathArb = pathParams.length
    ? fc.tuple(...pathParams.map((p) => idArb(p.name))).map((values) => {
        let i = 0;
        return op.path.replace(/\{\w+\}/g, () => values[i++]);
      })
    : fc.constant(op.path);

  const queryValue = fc.oneof(
    fc.constantFrom('0', '1', '20', '100', 'true', 'false', 'PDF', 'IMAGE', 'invoice'),
    fc.constantFrom(...NASTY_STRINGS.filter((s) => s.length < 300)),
    fc.string({ maxLength: 20 }),
    fc.constantFrom(...NUMBER_TEXTS),
  );
  const queryArb = fc
    .tuple(
      fc.tuple(
        ...queryParams.map((p) =>
          fc.option(
            fc.array(queryValue, { minLength: 1, maxLength: 2 }).map((vs) => vs.map((v) => [p.name as string, v] as [string, string])),
            { nil: undefined },
          ),
        ),
      ),
      fc.option(fc.tuple(fc.constantFrom('foo', 'limit[a]', 'offset[]', '__proto__[x]'), fc.string({ maxLength: 5 })), { nil: undefined }),
    )
    .map(([chosen, extra]) => {
      const pairs = chosen.flatMap((c) => c ?? []);
      if (extra) pairs.push(extra);
      const text = new URLSearchParams(pairs).toString();
      return text ? `?${text}` : '';
    });

  const jsonBody: fc.Arbitrary<string | undefined> =
    jsonContent || op.method !== 'GET'
      ? fc.oneof(
          {
            weight: 4,
            arbitrary: fc.array(fc.tuple(fc.nat(), fc.nat(3), hostile), { minLength: 1, maxLength: 3 }).map((m) => toJson(mutate(example ?? {}, m))),
          },
          { weight: 3, arbitrary: (jsonContent ? fromSchema(doc, jsonContent.schema) : hostile).map(toJson) },
          { weight: 1, arbitrary: hostile.map(toJson) },
          { weight: 1, arbitrary: fc.constantFrom('{', '{"a":}', '[1,]', 'nul', '\u0000', '{"a":1}{"b":2}', '"just a string"', '', '{"price": 1e99999}') },
        )
      : fc.constant(undefined);
  const contentType = fc.constantFrom(
    'application/json',
    'application/json',
    'application/json',
    'application/json; charset=utf-16',
    'text/plain',
    'multipart/form-data; boundary=zz',
    'application/x-www-form-urlencoded',
    '',
  );

  const auth = isAdmin
    ? fc.constantFrom<Record<string, string>>({ 'x-admin-token': ADMIN_TOKEN }, { 'x-admin-token': ADMIN_TOKEN }, {})
    : secured
      ? fc.constantFrom<Record<string, string>>(
          { authorization: keys.test },
          { authorization: keys.test },
          { authorization: `Bearer ${keys.test}` },
          { authorization: keys.live },
          ...(payerToo ? [{}] : []),
          { authorization: 'sk_test_' + 'x'.repeat(40) },
        )
      : fc.constant<Record<string, string>>({});
  const idempotency = params.some((p) => p.in === 'header' && p.name === 'Idempotency-Key')
    ? fc.option(
        fc.oneof(
          fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 40 }),
          fc.constantFrom('x'.repeat(300), 'with space', 'é'),
        ),
        { nil: undefined, freq: 3 },
      )
    : fc.constant(undefined);

  return fc.record({ path: pathArb, query: queryArb, body: jsonBody, contentType, auth, idempotency }).map((r) => {
    const headers: Record<string, string> = { ...r.auth };
    if (r.idempotency !== undefined) headers['idempotency-key'] = r.idempotency;
    if (r.body !== undefined && r.contentType) headers['content-type'] = r.contentType;
    return { method: op.method, path: `${r.path}${r.query}`, headers, body: op.method === 'GET' || op.method === 'DELETE' ? undefined : r.body };
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What is wrong with an answer, or null. */
function problemWith(status: number, text: string, contentType: string): string | null {
  if (status >= 500) return `${status} (server error)`;
  if (status < 400) return null;
  if (status === 404 && !contentType.startsWith('application/json')) return null; // static asset not found is still JSON below; keep strict
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `${status} without a JSON envelope`;
  }
  const keys = Object.keys(body ?? {})
    .sort()
    .join(',');
  if (keys !== 'code,data,env,error,log,message,status,support_id,validator') return `${status} envelope has keys ${keys}`;
  if (body.status !== status || typeof body.error !== 'string' || !body.error || body.message !== null || !UUID.test(body.support_id))
    return `${status} envelope fields are off`;
  if (status === 400) {
    const fieldAtFault = body.validator && typeof body.validator === 'object' && Object.keys(body.validator).length > 0;
    if (!fieldAtFault && !WHOLE_REQUEST_CODES.has(body.code)) return `400 (${body.code}) without a validator entry`;
  }
  return null;
}

describe('property-based fuzzing of every operation in /openapi.json', () => {
  let service: IsolatedService;

  beforeAll(async () => {
    service = await startIsolatedService({ BODY_LIMIT_BYTES: String(1024 * 1024) });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
  });

  it(`answers ${RUNS} generated requests with no 5xx, and every 4xx as an envelope naming the field at fault`, async () => {
    const base = service.server.baseUrl;
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as OpenApiDocument;
    const org = await service.createOrg('Fuzzed');
    const realIds: Record<string, string> = {};
    for (const [kind, make] of Object.entries(MAKERS)) realIds[kind] = await make(org);

    const ops = operations(doc).filter((op) => !op.path.startsWith('/health'));
    expect(ops.length).toBeGreaterThanOrEqual(15);
    const perOp = Math.ceil(RUNS / ops.length);
    const requests: { op: string; request: FuzzRequest }[] = [];
    ops.forEach((op, i) => {
      const arb = requestsFor(doc, op, realIds, { test: org.testKey, live: org.liveKey });
      for (const request of fc.sample(arb, { seed: SEED + i, numRuns: perOp })) requests.push({ op: `${op.method} ${op.path}`, request });
    });
    process.stdout.write(`fuzz: seed ${SEED}, ${requests.length} requests over ${ops.length} operations\n`);

    const failures: string[] = [];
    const seen: Record<string, number> = {};
    const statuses: Record<string, number> = {};
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const { op, request } = requests[next++];
        let status = 0;
        let text = '';
        let contentType = '';
        try {
          const res = await fetch(`${base}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
          status = res.status;
          contentType = res.headers.get('content-type') ?? '';
          text = await res.text();
        } catch (e) {
          failures.push(
            `${op}: no answer (${(e as Error).message}: ${String((e as { cause?: unknown }).cause)}; headers ${Object.keys(request.headers).join(', ') || 'none'}) to ${request.method} ${request.path.slice(0, 200)} body=${(request.body ?? '').slice(0, 300)}`,
          );
          continue;
        }
        statuses[status] = (statuses[status] ?? 0) + 1;
        const problem = problemWith(status, text, contentType);
        const signature = `${op} ${problem}`;
        if (problem && (seen[signature] = (seen[signature] ?? 0) + 1) <= 2) {
          failures.push(
            `${op}: ${problem}\n    request: ${request.method} ${request.path.slice(0, 300)} headers=${JSON.stringify({ ...request.headers, authorization: request.headers.authorization ? '<key>' : undefined })}\n    body: ${(request.body ?? '').slice(0, 500)}\n    answer: ${text.slice(0, 400)}`,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const fiveXx = Object.entries(statuses)
      .filter(([s]) => Number(s) >= 500)
      .reduce((n, [, c]) => n + c, 0);
    process.stdout.write(`fuzz: seed ${SEED}: ${requests.length} requests, statuses ${JSON.stringify(statuses)}, 5xx ${fiveXx}\n`);
    if (failures.length) {
      // the service's own account of its 500s, once per message
      const causes = [...new Set(errorLines(service.server).map((l) => /"message":"([^"]{0,200})/.exec(l)?.[1] ?? l.slice(0, 200)))];
      throw new Error(`fuzzing failed (reproduce with FUZZ_SEED=${SEED}):\n${failures.join('\n')}\nserver errors:\n${causes.join('\n')}`);
    }
    expect(requests.length).toBeGreaterThanOrEqual(RUNS);
    expect(fiveXx).toBe(0);
  }, 600_000);
});
