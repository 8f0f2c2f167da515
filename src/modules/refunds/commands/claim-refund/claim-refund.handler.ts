import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { InvalidStateTransitionError, NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import type { Currency } from '../../../../shared/money/currency';
import { fromDb, renderAmount } from '../../../../shared/money/money';
import { Clock } from '../../../../shared/time/clock';
import { formatTimestamp } from '../../../../shared/time/time';
import { canonicalProviderId, GetProviderTermsQuery } from '../../../providers';
import { CheckPayoutDestinationQuery, ClaimPayoutCommand, ListPayoutMethodsQuery, PayoutRequestQuery } from '../../../payouts';
import { InvoicePaymentValuesQuery } from '../../../payments';
import { PricingRatesQuery, RatesAsOfQuery } from '../../../rates';
import { payoutAmount, toUnits } from '../../domain/refund-amounts';
import { claimOpen } from '../../domain/refund-expiry';
import { allowedRefundTargets } from '../../domain/refund-status';
import { claimView, RefundClaimView } from '../../dto/refund.views';
import { RefundsRepository } from '../../persistence/refunds.repository';
import { RefundEvents, scopeOfRow } from '../refund-events';

/**
 * Answers payouts' claim route (ClaimPayoutCommand): the payer names where the refund goes. Payouts
 * checks the method and the address and gives the payout request and the chain's tip; the coin amount
 * is fixed here, at the refund's rates.
 */
@CommandHandler(ClaimPayoutCommand)
export class ClaimRefundHandler implements ICommandHandler<ClaimPayoutCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(RefundEvents) private readonly events: RefundEvents,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ token, providerId, address }: ClaimPayoutCommand): Promise<RefundClaimView> {
    const found = await this.refunds.findByToken(this.tx.manager, token);
    if (!found) throw new NotFoundError('refund claim');
    const scope = scopeOfRow(found);
    const methods = await this.queries.execute(new ListPayoutMethodsQuery(scope, found.invoice_id));
    const wanted = canonicalProviderId(providerId);
    // The same destination sent again (a retried request): the claim as it is.
    if (found.status !== 'AWAITING_DESTINATION' && found.provider_id === wanted && found.address?.toLowerCase() === address.trim().toLowerCase()) {
      return claimView(found, methods);
    }
    if (found.status !== 'AWAITING_DESTINATION') {
      throw new InvalidStateTransitionError('refund', found.status, 'AWAITING_PAYOUT', allowedRefundTargets(found.status));
    }
    const now = await this.clock.nowFor(scope);
    if (!claimOpen(found.expires_at, now)) {
      throw new ValidationFailedError({ token: `the claim expired at ${formatTimestamp(found.expires_at)}` }, 'This refund claim has expired', 'claim_expired');
    }
    // The method among those offered and the address for its network (payouts asks the rail adapter).
    const checked = await this.queries.execute(new CheckPayoutDestinationQuery(scope.mode, methods, wanted, address));
    const method = checked.method;

    const coin = method.currency as Currency;
    // `invoice`: the refund's snapshot, the rates the invoice was paid at, for a coin it was paid with. A coin
    // it was not paid with (offered when none of those is carried any more) has no rate the payer paid at:
    // its old rate would let the payer pick whichever coin rose most since, so it is today's, as with `current`.
    const paidWith =
      found.rate === 'invoice' &&
      (await this.queries.execute(new InvoicePaymentValuesQuery(scope, found.invoice_id))).some((p) => p.status === 'COMPLETED' && p.currency === coin);
    const rates = paidWith
      ? await this.queries.execute(new RatesAsOfQuery(undefined, found.rates_snapshot_id))
      : await this.queries.execute(new PricingRatesQuery(scope, [coin]));
    const amount = payoutAmount(fromDb(found.amount_usd), rates.usd[coin], method.decimals);
    if (!amount) throw new ValidationFailedError({ provider_id: `the refund is less than one smallest unit of ${method.currency}` });
    const units = toUnits(amount, method.decimals);
    const terms = await this.queries.execute(new GetProviderTermsQuery(scope, method.provider_id));
    // The payment request for the merchant's wallet, and the chain's tip now: the payout must be mined
    // after it (503 when the network's node does not answer; none asked in test mode without a rail).
    const request = await this.queries.execute(new PayoutRequestQuery(scope.mode, method, checked.address, units, amount.toFixed(method.decimals)));

    return this.tx.run(async (m) => {
      const before = await this.refunds.findByToken(m, token, true);
      if (!before) throw new NotFoundError('refund claim');
      // The same destination given meanwhile (a retry racing its original): the claim as it is.
      if (before.status !== 'AWAITING_DESTINATION' && before.provider_id === method.provider_id && before.address === checked.address) {
        return claimView(before, methods);
      }
      if (before.status !== 'AWAITING_DESTINATION') {
        throw new InvalidStateTransitionError('refund', before.status, 'AWAITING_PAYOUT', allowedRefundTargets(before.status));
      }
      // Open still, now that the rates and the chain's tip were asked (a slow node may have taken it past its end).
      const claimedAt = await this.clock.nowFor(scope, m);
      if (!claimOpen(before.expires_at, claimedAt)) {
        throw new ValidationFailedError(
          { token: `the claim expired at ${formatTimestamp(before.expires_at)}` },
          'This refund claim has expired',
          'claim_expired',
        );
      }
      const after = await this.refunds.setPayout(
        m,
        before,
        {
          provider_id: method.provider_id,
          network: method.rail?.network ?? method.network.toLowerCase(),
          payout_currency: method.currency,
          address: checked.address,
          payout_amount: renderAmount(amount),
          payout_units: units,
          payout_uri: request.uri,
          chain_id: method.rail?.chainId ?? null,
          token_contract: method.rail?.token ?? null,
          required_confirmations: Math.max(1, terms?.requiredConfirmations ?? 1),
          claimed_height: request.claimedHeight,
        },
        claimedAt,
      );
      await this.events.changed(m, before, after);
      return claimView(after, methods);
    });
  }
}
