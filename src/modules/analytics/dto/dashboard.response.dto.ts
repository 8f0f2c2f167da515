import { ApiProperty } from '@nestjs/swagger';
import { INVOICE_STATES, PAYMENT_STATES } from '../domain/dashboard';
import { PERIODS } from '../domain/period';

const MONEY = { type: String, pattern: '^\\d+\\.\\d{30}$' };
const RATIO = { type: String, pattern: '^[01]\\.\\d{30}$' };
const ZERO30 = '0.000000000000000000000000000000';

export class CurrencyFiguresDto {
  @ApiProperty({ example: 'USDT' }) currency: string;
  @ApiProperty({ example: 812, description: 'Payments of the window in this currency, every status' }) count: number;
  @ApiProperty({ ...MONEY, example: '40210.500000000000000000000000000000', description: 'USD value of the COMPLETED ones' }) volume_usd: string;
}

export class PaymentFiguresDto {
  @ApiProperty({ example: 1204, description: 'Payments whose happened_at is in the window, every status' }) count: number;
  @ApiProperty({ example: 1100 }) completed_count: number;
  @ApiProperty({ ...MONEY, example: '52110.250000000000000000000000000000', description: 'Sum of price_usd of the COMPLETED payments' }) volume_usd: string;
  @ApiProperty({
    type: 'object',
    properties: Object.fromEntries(PAYMENT_STATES.map((s) => [s, { type: 'integer' }])),
    description: 'Every payment state, 0 when none',
  })
  by_status: Record<string, number>;
  @ApiProperty({ type: [CurrencyFiguresDto], description: 'Currencies with payments in the window, by volume (then count, then currency)' })
  by_currency: CurrencyFiguresDto[];
}

export class InvoiceFiguresDto {
  @ApiProperty({ example: 500, description: 'Invoices whose created_at is in the window' }) count: number;
  @ApiProperty({
    type: 'object',
    properties: Object.fromEntries(INVOICE_STATES.map((s) => [s, { type: 'integer' }])),
    description: 'Their current states, 0 when none',
  })
  by_status: Record<string, number>;
  @ApiProperty({ example: 410, description: 'Invoices of the window that are COMPLETED now' }) paid_count: number;
  @ApiProperty({ ...MONEY, example: '48000.000000000000000000000000000000', description: 'Sum of price_usd of those COMPLETED invoices' })
  paid_volume_usd: string;
  @ApiProperty({
    ...MONEY,
    example: '117.073170731707317073170731707317',
    description: 'Mean price_usd of the invoices of the window (every state); 0 when none',
  })
  average_price_usd: string;
  @ApiProperty({ ...RATIO, example: '0.820000000000000000000000000000', description: 'paid_count / count; 0 when count is 0' }) conversion_rate: string;
}

export class ProviderFiguresDto {
  @ApiProperty({ example: 'prov_ethereum_usdt' }) provider_id: string;
  @ApiProperty({ example: 'Tether USD (Ethereum, ERC-20)' }) name: string;
  @ApiProperty({ example: 812, description: 'Payments of the window through this provider, every status' }) payments_count: number;
  @ApiProperty({ ...MONEY, example: '40210.500000000000000000000000000000', description: 'USD value of its COMPLETED payments' }) volume_usd: string;
  @ApiProperty({ ...RATIO, example: '0.771640323880302932853826213850', description: 'volume_usd / payments.volume_usd; 0 when that is 0' }) share: string;
}

export class TopCustomerDto {
  @ApiProperty({ example: 'jane@example.com', description: 'Lower-cased' }) customer_email: string;
  @ApiProperty({ example: 12, description: 'Invoices of this customer in the window' }) invoices_count: number;
  @ApiProperty({
    ...MONEY,
    example: '2400.000000000000000000000000000000',
    description: "Sum of price_usd of this customer's invoices of the window that are COMPLETED",
  })
  paid_volume_usd: string;
}

export class CustomerFiguresDto {
  @ApiProperty({ example: 230, description: 'Distinct customer_email (case-insensitive) of the invoices of the window' }) unique: number;
  @ApiProperty({ example: 40, description: 'Customers whose first invoice ever is in the window' }) new: number;
  @ApiProperty({ example: 190, description: 'unique - new: customers of the window who had invoiced before it' }) returning: number;
  @ApiProperty({ type: [TopCustomerDto], description: 'Up to 5 customers with paid_volume_usd > 0, by paid_volume_usd (then invoices_count, then email)' })
  top: TopCustomerDto[];
}

export class SeriesPointDto {
  @ApiProperty({ example: '2026-11-21', description: 'Bucket start (UTC): YYYY-MM-DD per day, YYYY-MM-DD HH:00:00 per hour for last_day / prev_last_day' })
  date: string;
  @ApiProperty({ ...MONEY, example: '1520.000000000000000000000000000000', description: 'USD value of the COMPLETED payments that happened in the bucket' })
  payments_volume_usd: string;
  @ApiProperty({ example: 17, description: 'Invoices created in the bucket' }) invoices_count: number;
}

export class RefundFiguresDto {
  @ApiProperty({ example: 2, description: 'Refunds created in the window that are not CANCELED or EXPIRED' }) count: number;
  @ApiProperty({ example: 1, description: 'Refunds COMPLETED in the window' }) completed_count: number;
  @ApiProperty({ ...MONEY, example: '20.000000000000000000000000000000', description: 'USD value of the refunds COMPLETED in the window' })
  refunded_usd: string;
}

export class SubscriptionCurrencyDto {
  @ApiProperty({ example: 'USD' }) currency: string;
  @ApiProperty({ ...MONEY, example: '120.000000000000000000000000000000', description: "Monthly recurring revenue in the schemas' currency" }) mrr: string;
  @ApiProperty({ ...MONEY, example: '120.000000000000000000000000000000', description: 'The same in USD at current rates' }) mrr_usd: string;
}

export class SubscriptionFiguresDto {
  @ApiProperty({ example: 12, description: 'Subscriptions ACTIVE now' }) active_count: number;
  @ApiProperty({ example: 1, description: 'Subscriptions PAST_DUE now (a period invoice voided unpaid)' }) past_due_count: number;
  @ApiProperty({ example: 3, description: 'Subscriptions CANCELED' }) canceled_count: number;
  @ApiProperty({
    ...MONEY,
    example: '130.000000000000000000000000000000',
    description:
      'Monthly recurring revenue of the ACTIVE and PAST_DUE subscriptions in USD at current rates: base price x quantity per month ' +
      '(a yearly price / 12, a weekly one x 52 / 12, a daily one x 365 / 12; divided by interval_count); usage is left out',
  })
  mrr_usd: string;
  @ApiProperty({ type: [SubscriptionCurrencyDto], description: 'mrr_usd by currency, largest first' }) mrr_by_currency: SubscriptionCurrencyDto[];
}

export class DashboardDto {
  @ApiProperty({ enum: PERIODS, example: 'last_7_days' }) period: string;
  @ApiProperty({ example: '2026-11-15 00:00:00', description: 'Window start (inclusive, UTC)' }) from: string;
  @ApiProperty({ example: '2026-11-22 00:00:00', description: 'Window end (exclusive, UTC): for last_* the end of the hour or day in progress' }) to: string;
  @ApiProperty({ type: PaymentFiguresDto }) payments: PaymentFiguresDto;
  @ApiProperty({ type: InvoiceFiguresDto }) invoices: InvoiceFiguresDto;
  @ApiProperty({ type: [ProviderFiguresDto], description: 'Providers with payments in the window, by volume (then count, then id)' })
  providers: ProviderFiguresDto[];
  @ApiProperty({ type: CustomerFiguresDto }) customers: CustomerFiguresDto;
  @ApiProperty({ type: [SeriesPointDto], description: 'One point per bucket of the window, oldest first, zero-filled' }) series: SeriesPointDto[];
  @ApiProperty({ type: RefundFiguresDto, description: 'Refunds (POST /invoices/{id}/refunds) of the window' }) refunds: RefundFiguresDto;
  @ApiProperty({
    ...MONEY,
    example: '230.000000000000000000000000000000',
    description: 'payments.volume_usd less refunds.refunded_usd: revenue net of the refunds completed in the window',
  })
  net_volume_usd: string;
  @ApiProperty({ type: SubscriptionFiguresDto, description: 'Subscriptions as they stand now, whatever the period' }) subscriptions: SubscriptionFiguresDto;
}

const days = ['2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21'];

export const DASHBOARD_EXAMPLE = {
  period: 'last_7_days',
  from: '2026-11-15 00:00:00',
  to: '2026-11-22 00:00:00',
  payments: {
    count: 4,
    completed_count: 3,
    volume_usd: '250.000000000000000000000000000000',
    by_status: { PENDING: 1, COMPLETED: 3, FAILED: 0, CANCELLED: 0 },
    by_currency: [
      { currency: 'USDT', count: 3, volume_usd: '200.000000000000000000000000000000' },
      { currency: 'USDC', count: 1, volume_usd: '50.000000000000000000000000000000' },
    ],
  },
  invoices: {
    count: 4,
    by_status: { PENDING: 1, COMPLETED: 3, VOIDED: 0, PROCESSING: 0, WAITING_FOR_CONFIRMATIONS: 0, PARTIALLY_PAID: 0 },
    paid_count: 3,
    paid_volume_usd: '250.000000000000000000000000000000',
    average_price_usd: '75.000000000000000000000000000000',
    conversion_rate: '0.750000000000000000000000000000',
  },
  providers: [
    {
      provider_id: 'prov_ethereum_usdt',
      name: 'Tether USD (Ethereum, ERC-20)',
      payments_count: 3,
      volume_usd: '200.000000000000000000000000000000',
      share: '0.800000000000000000000000000000',
    },
    {
      provider_id: 'prov_ethereum_usdc',
      name: 'USD Coin (Ethereum, ERC-20)',
      payments_count: 1,
      volume_usd: '50.000000000000000000000000000000',
      share: '0.200000000000000000000000000000',
    },
  ],
  customers: {
    unique: 2,
    new: 1,
    returning: 1,
    top: [
      { customer_email: 'jane@example.com', invoices_count: 3, paid_volume_usd: '200.000000000000000000000000000000' },
      { customer_email: 'joe@example.com', invoices_count: 1, paid_volume_usd: '50.000000000000000000000000000000' },
    ],
  },
  series: days.map((date, i) => ({
    date,
    payments_volume_usd: i === 6 ? '250.000000000000000000000000000000' : ZERO30,
    invoices_count: i === 6 ? 4 : 0,
  })),
  refunds: { count: 2, completed_count: 1, refunded_usd: '20.000000000000000000000000000000' },
  net_volume_usd: '230.000000000000000000000000000000',
  subscriptions: {
    active_count: 1,
    past_due_count: 0,
    canceled_count: 0,
    mrr_usd: '100.000000000000000000000000000000',
    mrr_by_currency: [{ currency: 'USD', mrr: '100.000000000000000000000000000000', mrr_usd: '100.000000000000000000000000000000' }],
  },
};
