import { anonymous, Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createOrg } from '../../support/factories';

describe('envelope and errors', () => {
  it('wraps success in all eight fields, with env following the key mode', async () => {
    const org = await createOrg();
    const res = await org.test.get('/auth/debug_token');
    expectSuccess(res);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'env', 'error', 'log', 'message', 'status', 'support_id', 'validator']);
    expect(res.body.env).toBe('development');
    expect((await org.live.get('/auth/debug_token')).body.env).toBe('production');
  });

  it('answers an unknown route with a 404 envelope', async () => {
    const org = await createOrg();
    expectError(await org.test.get('/no/such/route'), 404, { code: 'route_not_found' });
    expectError(await anonymous().post('/nothing-here', {}), 404, { code: 'route_not_found' });
  });

  it('answers malformed JSON with 400, never 500', async () => {
    const org = await createOrg();
    const res = await org.test.request('POST', '/admin/organizations', {
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json', 'x-admin-token': 'test-admin-token-0123456789' },
    });
    const body = expectError(res, 400, { code: 'malformed_json' });
    expect(body.validator).toBeNull();
  });

  it('answers a body over the limit with 413 in the envelope', async () => {
    const huge = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
    const res = await anonymous().request('POST', '/admin/organizations', {
      rawBody: huge,
      headers: { 'content-type': 'application/json', 'x-admin-token': 'test-admin-token-0123456789' },
    });
    expectError(res, 413, { code: 'payload_too_large' });
  });

  it('answers an unsupported content type with 400', async () => {
    const res = await anonymous().request('POST', '/admin/organizations', {
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-admin-token': 'test-admin-token-0123456789' },
    });
    expectError(res, 400, { code: 'unsupported_content_type' });
  });

  it('answers a body sent without a Content-Type with 400, never reading it as no body', async () => {
    const org = await createOrg();
    const res = await org.test.request('POST', '/invoices/list', { rawBody: Buffer.from('{"status":["VOIDED"]}') });
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expectError(res, 400, { code: 'unsupported_content_type' });
    // Without a body, a POST reads as an empty one.
    expectSuccess(await org.test.request('POST', '/invoices/list', {}));
  });

  it('maps validation failures to 400 with the field in validator', async () => {
    const res = await anonymous().request('POST', '/admin/organizations', {
      body: { name: 42 },
      headers: { 'x-admin-token': 'test-admin-token-0123456789' },
    });
    const body = expectError(res, 400, { code: 'validation_failed', field: 'name' });
    expect(body.validator.name).toMatch(/string/);
  });

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const org = await createOrg();
    const sane = await org.test.get('/auth/debug_token', { headers: { 'x-request-id': 'req-abc.123' } });
    expect(sane.headers.get('x-request-id')).toBe('req-abc.123');
    expect(sane.body.log.request_id).toBe('req-abc.123');
    const unsafe = await org.test.get('/auth/debug_token', { headers: { 'x-request-id': 'bad id with spaces <script>' } });
    expect(unsafe.headers.get('x-request-id')).not.toContain(' ');
    expect(unsafe.body.log.request_id).toBe(unsafe.headers.get('x-request-id'));
  });

  it('gives each error a fresh support id', async () => {
    const a = expectError(await anonymous().get('/auth/debug_token'), 401);
    const b = expectError(await anonymous().get('/auth/debug_token'), 401);
    expect(a.support_id).not.toBe(b.support_id);
  });

  it('serves liveness, readiness and Prometheus metrics without a key', async () => {
    expect(expectSuccess(await anonymous().get('/health'))).toEqual({ status: 'ok' });
    expect(expectSuccess(await anonymous().get('/health/ready')).status).toBe('ok');
    const metrics = await new Api(null).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/http_requests_total\{[^}]*route="\/health"/);
    expect(metrics.text).toMatch(/http_request_duration_seconds_bucket/);
    expect(metrics.text).toMatch(/db_pool_total_connections \d+/);
  });

  it('publishes a valid OpenAPI 3 document and Swagger UI', async () => {
    const doc = await anonymous().get('/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(doc.body.components.securitySchemes.api_key).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/auth/debug_token', '/health/ready']));
    const ui = await anonymous().get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
  });

  it('publishes an OpenAPI document whose operations all declare responses and whose $refs all resolve', async () => {
    const doc = (await anonymous().get('/openapi.json')).body;
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    const methods = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
    const operationIds = new Set<string>();
    let operations = 0;
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      expect(path.startsWith('/')).toBe(true);
      for (const [method, op] of Object.entries<any>(item)) {
        if (!methods.includes(method)) continue;
        operations++;
        expect(Object.keys(op.responses ?? {}).length).toBeGreaterThan(0);
        for (const code of Object.keys(op.responses)) expect(code).toMatch(/^([1-5]\d\d|[1-5]XX|default)$/);
        expect(typeof op.operationId).toBe('string');
        expect(operationIds.has(op.operationId)).toBe(false);
        operationIds.add(op.operationId);
        // every {param} in the path is declared as a path parameter
        for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
          expect(op.parameters ?? []).toEqual(expect.arrayContaining([expect.objectContaining({ name, in: 'path', required: true })]));
        }
        for (const requirement of op.security ?? []) {
          for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes).toHaveProperty(scheme);
        }
      }
    }
    expect(operations).toBeGreaterThan(3);
    const refs: string[] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === '$ref' && typeof v === 'string') refs.push(v);
          else walk(v);
        }
      }
    };
    walk(doc);
    for (const ref of refs) {
      expect(ref.startsWith('#/')).toBe(true);
      const target = ref
        .slice(2)
        .split('/')
        .reduce<any>((at, part) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    }
  });
});
