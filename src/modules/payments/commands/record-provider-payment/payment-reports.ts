import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { AMOUNT_PROBLEM_MESSAGES, amountProblem, Amount, MAX_INTEGER_DIGITS, Money, parseAmount, roundMoney } from '../../../../shared/money/money';
import { Clock } from '../../../../shared/time/clock';
import { GetProviderTermsQuery, paymentKindOf } from '../../../providers';
import { RatesAsOfQuery } from '../../../rates';
import { MAX_CONFIRMATIONS } from '../../domain/confirmations';
import { isPaymentStatus, PaymentStatus } from '../../domain/payment-status';
import type { PaymentRecord } from '../../persistence/payment.record';
import type { NewPaymentReport } from './record-provider-payment.command';

/** A provider's clock may run a little ahead of ours. */
const FUTURE_SKEW_MS = 5 * 60 * 1000;

export interface PricedReport {
  report: NewPaymentReport;
  /** The catalog id (prov_...), whichever spelling the report used. */
  providerId: string;
  /** A disabled provider takes no new payments; later reports of a payment it already has still apply. */
  providerEnabled: boolean;
  price: Amount;
  priceUsd: Amount;
  ratesSnapshotId: string;
  /** When it happened, as reported (a block's time, a provider's), kept and shown as it is. */
  happenedAt: Date;
  /**
   * When it happened as far as its rates go: `happenedAt`, or the service's now when that is ahead of it (within
   * the skew a provider's clock or a block's stamp may have): it did not happen later than now.
   */
  valuedAt: Date;
  status: PaymentStatus;
  currency: PaymentRecord['currency'];
  /** Confirmations the payment needs (the organization's setting for the provider; 0 for fiat). */
  requiredConfirmations: number;
  /** The invoice snapshot it was valued at again (atRates), if any: never asked again for the same one. */
  agreedTried?: string;
}

/** A payment worth more USD than an amount holds (each input fits; a coin's price may not): 400 naming `price`. */
function worthStorable(usd: Amount): void {
  if (usd.abs().greaterThanOrEqualTo(new Money(10).pow(MAX_INTEGER_DIGITS))) {
    throw new ValidationFailedError({ price: `is worth more than ${MAX_INTEGER_DIGITS} integer digits of USD` });
  }
}

/** The first step of recording a new payment, outside any transaction: check the report, find its provider, value it. */
@Injectable()
export class PaymentReports {
  constructor(
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /**
   * The same report valued at the rates of snapshot `snapshotId` instead (the invoice's, while its rate lock
   * holds: agreedRatesSnapshot), outside the transaction. Unchanged when the snapshot has no rate of the
   * payment's currency.
   */
  async atRates(priced: PricedReport, snapshotId: string): Promise<PricedReport> {
    const rates = await this.queries.execute(new RatesAsOfQuery(undefined, snapshotId));
    const rate = rates.snapshotId === snapshotId ? rates.usd[priced.currency] : undefined;
    if (!rate) return { ...priced, agreedTried: snapshotId };
    worthStorable(priced.price.mul(rate));
    return { ...priced, priceUsd: roundMoney(priced.price.mul(rate)), ratesSnapshotId: snapshotId, agreedTried: snapshotId };
  }

  /** Checks the report and values it in USD at the rates in force when it happened (outside the transaction). */
  async price(scope: Scope, report: NewPaymentReport): Promise<PricedReport> {
    const errors: Record<string, string> = {};
    const provider = await this.queries.execute(new GetProviderTermsQuery(scope, report.providerId));
    if (!provider) errors.provider_id = `unknown provider "${report.providerId}"`;

    const problem = amountProblem(report.price);
    if (problem) errors.price = AMOUNT_PROBLEM_MESSAGES[problem];
    else if (parseAmount(report.price).isZero()) errors.price = 'must be greater than 0';
    else if (provider && parseAmount(report.price).decimalPlaces() > provider.catalog.decimals) {
      errors.price = `must have at most ${provider.catalog.decimals} fractional digits for ${provider.catalog.id} (${provider.catalog.currency})`;
    }

    const now = await this.clock.nowFor(scope);
    const happenedAt = report.happenedAt ?? now;
    if (happenedAt.getTime() > now.getTime() + FUTURE_SKEW_MS) errors.happened_at = 'must not be in the future';

    const key = report.idempotencyKey ?? null;
    if (key !== null && (key.length < 1 || key.length > 200)) errors.idempotency_key = 'must be 1 to 200 characters';

    const confirmations = report.confirmations ?? null;
    if (confirmations !== null) {
      if (!Number.isSafeInteger(confirmations) || confirmations < 0 || confirmations > MAX_CONFIRMATIONS) {
        errors.confirmations = `must be a whole number from 0 to ${MAX_CONFIRMATIONS}`;
      } else if (provider && paymentKindOf(provider.catalog) === 'fiat') {
        errors.confirmations = `${provider.catalog.id} is a fiat provider; its payments have no confirmations`;
      }
    }

    const status: PaymentStatus = report.status ?? 'PENDING';
    if (!isPaymentStatus(status)) errors.status = 'must be one of PENDING, COMPLETED, FAILED, CANCELLED';
    if (!provider || Object.keys(errors).length) throw new ValidationFailedError(errors);

    const catalog = provider.catalog;
    const price = parseAmount(report.price);
    // A time ahead of the clock (within the skew a provider's clock may have) is valued as now: it did not
    // happen later than that (and it came late only if it was recorded late: settle).
    const valuedAt = happenedAt.getTime() > now.getTime() ? now : happenedAt;
    const rates = await this.queries.execute(new RatesAsOfQuery(valuedAt));
    worthStorable(price.mul(rates.usd[catalog.currency]));
    return {
      report,
      providerId: catalog.id,
      providerEnabled: provider.enabled,
      price,
      status,
      happenedAt,
      valuedAt,
      currency: catalog.currency,
      requiredConfirmations: paymentKindOf(catalog) === 'crypto' ? provider.requiredConfirmations : 0,
      priceUsd: roundMoney(price.mul(rates.usd[catalog.currency])),
      ratesSnapshotId: rates.snapshotId,
    };
  }
}
