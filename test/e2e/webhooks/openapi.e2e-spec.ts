import { anonymous } from '../../support/api';

describe('Events and webhooks: OpenAPI document', () => {
  let doc: any;
  beforeAll(async () => {
    const res = await anonymous().get('/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body;
  });

  it.each([
    ['post', '/events', 200, 'ListEventsRequestDto', 'Events'],
    ['post', '/events/{id}', 200, null, 'Events'],
    ['post', '/webhooks', 201, 'CreateWebhookRequestDto', 'Webhooks'],
    ['get', '/webhooks', 200, null, 'Webhooks'],
    ['get', '/webhooks/{id}', 200, null, 'Webhooks'],
    ['put', '/webhooks/{id}', 200, 'UpdateWebhookRequestDto', 'Webhooks'],
    ['delete', '/webhooks/{id}', 200, null, 'Webhooks'],
    ['post', '/webhooks/{id}/rotate_secret', 200, 'RotateSecretRequestDto', 'Webhooks'],
    ['post', '/webhooks/{id}/attempts', 200, 'ListAttemptsRequestDto', 'Webhooks'],
    ['post', '/webhooks/{id}/redeliver', 202, 'RedeliverRequestDto', 'Webhooks'],
  ] as const)('documents %s %s with schemas and examples', (method, path, status, body, tag) => {
    const op = doc.paths[path]?.[method];
    expect(op).toBeDefined();
    expect(op.tags).toEqual([tag]);
    expect(op.summary).toEqual(expect.any(String));
    expect(op.security).toEqual(expect.arrayContaining([{ api_key: [] }]));
    const success = op.responses[String(status)].content['application/json'];
    expect(success.schema).toBeDefined();
    expect(success.example.data).toBeDefined();
    expect(op.responses['401']).toBeDefined();
    if (body) {
      const request = op.requestBody.content['application/json'];
      expect(request.schema.$ref).toMatch(new RegExp(`${body}$`));
      expect(Object.values(request.examples ?? {}).length).toBeGreaterThan(0);
    }
  });

  it('describes the event, endpoint and attempt shapes', () => {
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.EventDto.properties)).toEqual(['id', 'type', 'created_at', 'organization_id', 'mode', 'data']);
    expect(schemas.EventDto.properties.type.allOf?.[0]?.$ref ?? schemas.EventDto.properties.type.$ref).toMatch(/EventType$/);
    expect(schemas.EventType.enum).toEqual(
      expect.arrayContaining(['invoice.completed', 'payment.created', 'payment.updated', 'file.deleted', 'webhook_endpoint.disabled']),
    );
    expect(JSON.stringify(schemas.WebhookEndpointWithSecretDto)).toContain('"secret"');
    expect(schemas.WebhookEndpointDto.properties).not.toHaveProperty('secret');
    expect(Object.keys(schemas.WebhookAttemptDto.properties)).toEqual(
      expect.arrayContaining(['attempt_number', 'succeeded', 'response_status', 'error', 'next_attempt_at']),
    );
  });
});
