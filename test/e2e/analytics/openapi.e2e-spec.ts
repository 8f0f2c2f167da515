import { anonymous } from '../../support/api';

describe('OpenAPI document for analytics', () => {
  it('documents POST /analytics/dashboard: periods, the response shape, its definitions and an example', async () => {
    const doc = (await anonymous().get('/openapi.json')).body;
    const op = doc.paths['/analytics/dashboard']?.post;
    if (!op) throw new Error(`/analytics/dashboard missing; paths: ${Object.keys(doc.paths).join(',')}`);
    expect(op.requestBody.content['application/json'].schema.$ref).toMatch(/DashboardRequestDto$/);
    expect(doc.components.schemas.DashboardRequestDto.properties.period.enum).toEqual([
      'last_day',
      'last_7_days',
      'last_30_days',
      'last_90_days',
      'last_365_days',
      'prev_last_day',
      'prev_last_7_days',
      'prev_last_30_days',
      'prev_last_90_days',
      'prev_last_365_days',
    ]);
    const ok = op.responses['200'].content['application/json'];
    expect(ok.example.data.series).toHaveLength(7);
    expect(Object.keys(ok.example.data)).toEqual([
      'period',
      'from',
      'to',
      'payments',
      'invoices',
      'providers',
      'customers',
      'series',
      'refunds',
      'net_volume_usd',
      'subscriptions',
    ]);
    for (const code of [400, 401, 403]) expect(op.responses[String(code)]).toBeDefined();
    expect(op.description).toMatch(/happened_at/);
    expect(op.description).toMatch(/created_at/);
    const s = doc.components.schemas;
    expect(Object.keys(s.DashboardDto.properties)).toEqual([
      'period',
      'from',
      'to',
      'payments',
      'invoices',
      'providers',
      'customers',
      'series',
      'refunds',
      'net_volume_usd',
      'subscriptions',
    ]);
    expect(s.RefundFiguresDto.properties.refunded_usd.description).toMatch(/COMPLETED/);
    expect(s.SubscriptionFiguresDto.properties.mrr_usd.description).toMatch(/Monthly recurring revenue/);
    expect(s.InvoiceFiguresDto.properties.paid_count.description).toMatch(/COMPLETED/);
    expect(s.InvoiceFiguresDto.properties.conversion_rate.description).toMatch(/paid_count \/ count/);
    expect(s.CustomerFiguresDto.properties.new.description).toMatch(/first invoice/);
  });
});
