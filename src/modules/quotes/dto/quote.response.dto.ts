/** OpenAPI schema and example of the `/pay/quote` response data. */
const money = { type: 'string', example: '100.000000000000000000000000000000', pattern: '^-?\\d+\\.\\d{30}$' };
const stepProperties = {
  idx: { type: 'integer' },
  currency: { type: 'string' },
  calculation_type: { type: 'string', enum: ['PRODUCT', 'PAYMENT_INTENT', 'CURRENCY_CHANGE', 'TOTAL', 'TOTAL_USD'] },
  title: { type: 'string' },
  initial_price: money,
  price: money,
  price_delta: money,
  initial_price_orig: money,
  price_orig: money,
  price_delta_orig: money,
  initial_price_usd: money,
  price_usd: money,
  price_delta_usd: money,
  details: {
    oneOf: [
      { type: 'object', additionalProperties: true },
      { type: 'array', maxItems: 0 },
    ],
  },
};

export const QUOTE_SCHEMA = {
  type: 'object',
  properties: {
    currency: { type: 'string' },
    exchange_rate_timestamp: { type: 'string', example: '2026-11-20 00:00:00' },
    total: { type: 'object', properties: { currency: { type: 'string' }, price: money, price_usd: money } },
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          item: { type: 'object', additionalProperties: true, description: 'The echoed item; TOTAL and TOTAL_USD entries carry {type, currency, status}' },
          calculations: { type: 'array', items: { type: 'object', properties: stepProperties } },
          total: {
            type: 'object',
            properties: { currency: { type: 'string' }, currency_original: { type: 'string' }, price: money, price_usd: money, price_orig: money },
          },
        },
      },
    },
  },
};

const z = '0.000000000000000000000000000000';
export const QUOTE_EXAMPLE = {
  currency: 'USD',
  exchange_rate_timestamp: '2026-11-20 00:00:00',
  total: { currency: 'USD', price: '115.870000000000000000000000000000', price_usd: '115.870000000000000000000000000000' },
  items: [
    {
      item: { type: 'PAYMENT_INTENT', price: '100.000000000000000000000000000000', currency: 'EUR' },
      calculations: [
        {
          idx: 0,
          currency: 'EUR',
          calculation_type: 'PAYMENT_INTENT',
          title: 'Payment intent',
          initial_price: '100.000000000000000000000000000000',
          price: '100.000000000000000000000000000000',
          price_delta: z,
          initial_price_orig: '100.000000000000000000000000000000',
          price_orig: '100.000000000000000000000000000000',
          price_delta_orig: z,
          initial_price_usd: '115.870000000000000000000000000000',
          price_usd: '115.870000000000000000000000000000',
          price_delta_usd: z,
          details: { payment_intent_id: null, currency: 'EUR', price: '100.000000000000000000000000000000', quantity: 1 },
        },
        {
          idx: 1,
          currency: 'USD',
          calculation_type: 'CURRENCY_CHANGE',
          title: 'Currency change EUR to USD',
          initial_price: '100.000000000000000000000000000000',
          price: '115.870000000000000000000000000000',
          price_delta: '15.870000000000000000000000000000',
          initial_price_orig: '100.000000000000000000000000000000',
          price_orig: '100.000000000000000000000000000000',
          price_delta_orig: z,
          initial_price_usd: '115.870000000000000000000000000000',
          price_usd: '115.870000000000000000000000000000',
          price_delta_usd: z,
          details: { from: 'EUR', to: 'USD', from_rate_usd: '1.158700000000000000000000000000', to_rate_usd: '1.000000000000000000000000000000' },
        },
      ],
      total: {
        currency: 'USD',
        currency_original: 'EUR',
        price: '115.870000000000000000000000000000',
        price_usd: '115.870000000000000000000000000000',
        price_orig: '100.000000000000000000000000000000',
      },
    },
    {
      item: { type: 'TOTAL', currency: 'USD', status: 'INCLUDED' },
      calculations: [
        {
          idx: 0,
          currency: 'USD',
          calculation_type: 'TOTAL',
          title: 'Total',
          initial_price: z,
          price: '115.870000000000000000000000000000',
          price_delta: '115.870000000000000000000000000000',
          initial_price_orig: z,
          price_orig: '115.870000000000000000000000000000',
          price_delta_orig: '115.870000000000000000000000000000',
          initial_price_usd: z,
          price_usd: '115.870000000000000000000000000000',
          price_delta_usd: '115.870000000000000000000000000000',
          details: [],
        },
      ],
    },
    {
      item: { type: 'TOTAL_USD', currency: 'USD', status: 'INCLUDED' },
      calculations: [
        {
          idx: 0,
          currency: 'USD',
          calculation_type: 'TOTAL_USD',
          title: 'Total in USD',
          initial_price: z,
          price: '115.870000000000000000000000000000',
          price_delta: '115.870000000000000000000000000000',
          details: [],
        },
      ],
    },
  ],
};
