import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { InvalidStateTransitionError, NotFoundError, ServiceUnavailableError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import type { Currency } from '../../../../shared/money/currency';
import { type Amount, fromDb, renderAmount } from '../../../../shared/money/money';
import { Clock } from '../../../../shared/time/clock';
import { formatTimestamp } from '../../../../shared/time/time';
import { canonicalProviderId, GetProviderTermsQuery } from '../../../providers';
import { PayoutChainTipQuery } from '../../../rails';
import { PricingRatesQuery, RatesAsOfQuery } from '../../../rates';
import { checkPayoutAddress } from '../../addresses/payout-address';
import { type PayoutRequest, payoutUri } from '../../domain/payout-uri';
import { payoutAmount, toUnits } from '../../domain/refund-amounts';
import { claimOpen } from '../../domain/refund-expiry';
import { allowedRefundTargets } from '../../domain/refund-status';
import { claimView, RefundClaimView } from '../../dto/refund.views';
import { RefundsRepository } from '../../persistence/refunds.repository';
import { type PayoutMethod, PayoutMethods } from '../../payout-methods';
import { RefundEvents, scopeOfRow } from '../refund-events';
import { ClaimRefundCommand } from './claim-refund.command';

@CommandHandler(ClaimRefundCommand)
export class ClaimRefundHandler implements ICommandHandler<ClaimRefundCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(RefundsRepository) private readonly refunds: RefundsRepository,
    @Inject(RefundEvents) private readonly events: RefundEvents,
    @Inject(PayoutMethods) private readonly methods: PayoutMethods,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ token, providerId, address }: ClaimRefundCommand): Promise<RefundClaimView> {
    const found = await this.refunds.findByToken(this.tx.manager, token);
    if (!found) throw new NotFoundError('refund claim');
    const scope = scopeOfRow(found);
    const methods = await this.methods.forInvoice(scope, found.invoice_id);
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
    const method = methods.find((m) => m.provider_id === wanted);
    if (!method) {
      throw new ValidationFailedError({ provider_id: `must be one of ${methods.map((m) => m.provider_id).join(', ') || '(no payout method is configured)'}` });
    }
    const checked = checkPayoutAddress(method.network, scope.mode, address);
    if (!checked.ok) throw new ValidationFailedError({ address: checked.problem });

    const rates =
      found.rate === 'invoice'
        ? await this.queries.execute(new RatesAsOfQuery(undefined, found.rates_snapshot_id))
        : await this.queries.execute(new PricingRatesQuery(scope, [method.currency as Currency]));
    const amount = payoutAmount(fromDb(found.amount_usd), rates.usd[method.currency as Currency], method.decimals);
    if (!amount) throw new ValidationFailedError({ provider_id: `the refund is less than one smallest unit of ${method.currency}` });
    const units = toUnits(amount, method.decimals);
    const terms = await this.queries.execute(new GetProviderTermsQuery(scope, method.provider_id));
    const uri = payoutUri(payoutRequest(method, checked.address, amount, units));
    // The chain's tip now: the payout must be mined after it (an older transaction to the address is no payout).
    // Test mode without a rail on the network: no chain to ask; the merchant simulates the payout.
    const tip = method.rail ? await this.queries.execute(new PayoutChainTipQuery(scope.mode, method.rail.network)) : null;
    if (method.rail && tip === null) throw new ServiceUnavailableError(`The ${method.network} node does not answer right now; try again shortly`);

    return this.tx.run(async (m) => {
      const before = await this.refunds.findByToken(m, token, true);
      if (!before) throw new NotFoundError('refund claim');
      if (before.status !== 'AWAITING_DESTINATION') {
        throw new InvalidStateTransitionError('refund', before.status, 'AWAITING_PAYOUT', allowedRefundTargets(before.status));
      }
      const after = await this.refunds.setPayout(
        m,
        before.id,
        {
          provider_id: method.provider_id,
          network: method.rail?.network ?? method.network.toLowerCase(),
          payout_currency: method.currency,
          address: checked.address,
          payout_amount: renderAmount(amount),
          payout_units: units,
          payout_uri: uri,
          chain_id: method.rail?.chainId ?? null,
          token_contract: method.rail?.token ?? null,
          required_confirmations: Math.max(1, terms?.requiredConfirmations ?? 1),
          claimed_height: tip,
        },
        now,
      );
      await this.events.changed(m, before, after);
      return claimView(after, methods);
    });
  }
}

/**
 * What the payout URI asks the merchant's wallet to send, in the payout rail's family's standard:
 * EIP-681 with the chain id and smallest units on EVM chains, BIP21 with the network's scheme and
 * the coin amount (already rounded down to its 8 decimals) on UTXO chains. Without a rail (test mode
 * only) a plain `<network>:<address>?amount=<coin>`: no wallet sends it, the payout is simulated.
 */
function payoutRequest(method: PayoutMethod, address: string, amount: Amount, units: string): PayoutRequest {
  const { rail } = method;
  if (!rail || rail.family === 'utxo') return { family: 'utxo', network: method.network, address, amount: amount.toFixed(method.decimals) };
  if (rail.chainId === null) throw new Error(`the EVM payout rail ${rail.network} has no chain id`);
  return { family: 'evm', address, chainId: rail.chainId, units, token: rail.token };
}
