/** Request bodies for catalog tests, built the way a merchant's code sends them. */
export function recurringSchema(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Monthly',
    description: 'Billed monthly in arrears',
    currency: 'USD',
    type: 'RECURRING',
    base_price: 100,
    interval_type: 'MONTH',
    interval_count: 1,
    payment_type: 'ARREARS',
    renew_type: 'CALENDAR',
    billing_type: 'FULL',
    configurations: [
      { starts_at: 0, ends_at: 1000, price_per_unit: 0.01, metric: { metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' } },
      { starts_at: 1000, ends_at: null, price_per_unit: 0.005, metric: { metric_key: 'api_calls', name: 'API calls', aggregation_type: 'SUM' } },
    ],
    ...overrides,
  };
}

export function oneTimeSchema(overrides: Record<string, unknown> = {}) {
  return { name: 'Setup fee', description: 'Once', currency: 'EUR', type: 'ONE_TIME', base_price: '49.99', configurations: [], ...overrides };
}

export function productBody(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Pro plan',
    description: 'Everything in Basic, plus API access',
    metadata: { tier: 'pro', team: 'growth' },
    schemas: [recurringSchema(), oneTimeSchema()],
    ...overrides,
  };
}

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
export const AMOUNT_30 = /^\d+\.\d{30}$/;
