import { anonymous } from '../../support/api';

describe('OpenAPI document for invoices', () => {
  it('documents every invoice endpoint with request and response schemas and examples', async () => {
    const doc = (await anonymous().get('/openapi.json')).body;
    const ops: Array<[string, string, number, boolean]> = [
      ['/invoices/create', 'post', 201, true],
      ['/invoices/list', 'post', 200, true],
      ['/invoices/{id}', 'post', 200, true],
      ['/invoices/{id}', 'put', 200, true],
      ['/invoices/{id}/short_state', 'get', 200, false],
    ];
    for (const [path, method, status, hasBody] of ops) {
      const op = doc.paths[path]?.[method];
      if (!op) throw new Error(`${method} ${path} missing; paths: ${Object.keys(doc.paths).join(',')}`);
      if (hasBody) expect(op.requestBody.content['application/json'].schema.$ref).toMatch(/RequestDto$/);
      const ok = op.responses[String(status)].content['application/json'];
      expect(ok.schema).toBeDefined();
      expect(ok.example.data).toBeDefined();
      expect(op.responses['400']).toBeDefined();
      expect(op.responses['401']).toBeDefined();
    }
    expect(doc.paths['/invoices/{id}/short_state'].get.responses['200'].content['application/json'].example.status).toBe('PENDING');
    expect(doc.components.schemas.CreateInvoiceRequestDto.properties.items.items.oneOf).toHaveLength(2);
    expect(doc.components.schemas.ProductItemDoc).toBeDefined();
    expect(doc.components.schemas.InvoiceDto.properties.price_usd).toBeDefined();
  });
});
