import { anonymous } from '../../support/api';

describe('Products: OpenAPI document', () => {
  let doc: any;
  beforeAll(async () => {
    const res = await anonymous().get('/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });

  it.each([
    ['post', '/products', 200, true],
    ['put', '/products/{id}', 200, true],
    ['get', '/products/{id}', 200, false],
    ['get', '/products', 200, false],
  ] as const)('documents %s %s with schemas and an example', (method, path, status, hasBody) => {
    const op = doc.paths[path]?.[method];
    expect(op).toBeDefined();
    expect(op.summary).toEqual(expect.any(String));
    expect(op.security).toEqual(expect.arrayContaining([{ api_key: [] }]));
    const success = op.responses[String(status)].content['application/json'];
    expect(success.schema).toBeDefined();
    expect(success.example.data).toBeDefined();
    expect(op.responses['401']).toBeDefined();
    if (hasBody) {
      const body = op.requestBody.content['application/json'];
      expect(body.schema.$ref).toMatch(/ProductRequestDto$/);
      expect(Object.values(body.examples ?? {}).length).toBeGreaterThan(0);
    }
  });

  it('describes the product, schema and tier read forms and the write form', () => {
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.ProductResponseDto.properties)).toEqual(
      expect.arrayContaining(['id', 'version_group_id', 'is_active', 'schemas', 'updated_at']),
    );
    expect(Object.keys(schemas.BillingSchemaResponseDto.properties)).toEqual(expect.arrayContaining(['base_price', 'interval_type', 'configurations']));
    expect(Object.keys(schemas.ConfigurationResponseDto.properties)).toEqual(expect.arrayContaining(['starts_at', 'ends_at', 'price_per_unit', 'metric_id']));
    expect(schemas.SchemaInputDto.properties.interval_type.enum).toEqual(['DAY', 'WEEK', 'MONTH', 'YEAR']);
    expect(schemas.MetricInputDto.properties.aggregation_type.enum).toEqual(['SUM', 'COUNT', 'MAX', 'UNIQUE_COUNT', 'LATEST']);
    expect(doc.paths['/products'].get.parameters.map((p: any) => p.name).sort()).toEqual(['include_inactive', 'limit', 'offset']);
  });
});
