import { anonymous } from '../../support/api';

describe('OpenAPI document for payments and providers', () => {
  it('documents every payments, providers and test-helper endpoint with schemas and examples', async () => {
    const doc = (await anonymous().get('/openapi.json')).body;
    const ops: Array<[string, string, number, boolean, number[]]> = [
      ['/payments', 'post', 200, true, [400, 401, 403]],
      ['/payments/{id}', 'post', 200, true, [400, 401, 403, 404]],
      ['/providers/{invoice_id}', 'get', 200, false, [400, 401, 403, 404]],
      ['/test_helpers/payments', 'post', 201, true, [400, 401, 403, 404]],
      ['/test_helpers/payments/{id}/status', 'post', 200, true, [400, 401, 403, 404]],
    ];
    for (const [path, method, status, hasBody, errors] of ops) {
      const op = doc.paths[path]?.[method];
      if (!op) throw new Error(`${method} ${path} missing; paths: ${Object.keys(doc.paths).join(',')}`);
      if (hasBody) expect(op.requestBody.content['application/json'].schema.$ref).toMatch(/RequestDto$/);
      const ok = op.responses[String(status)].content['application/json'];
      expect(ok.schema).toBeDefined();
      expect(ok.example.data).toBeDefined();
      for (const code of errors) expect(op.responses[String(code)]).toBeDefined();
    }
    expect(doc.paths['/assets/providers/{file}'].get.responses['200'].content['image/svg+xml']).toBeDefined();
    expect(doc.components.schemas.PaymentDto.properties.price_usd).toBeDefined();
    expect(doc.components.schemas.ProviderDto.properties.enabled).toBeDefined();
    expect(doc.components.schemas.AvailableProviderDto.properties.metadata).toBeDefined();
    expect(doc.components.schemas.ListPaymentsRequestDto.properties.expand.items.enum).toEqual(['provider']);
  });
});
