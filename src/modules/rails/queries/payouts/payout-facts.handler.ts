import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { PayoutAddressCheck, TransactionIdCheck } from '../../domain/payment-rail';
import { PayoutFacts } from '../../payout-facts';
import { RAIL_ADAPTERS } from '../../rail-registry';
import { RailsConfig } from '../../rails.config';
import { CheckPayoutAddressQuery, PayoutNetworksQuery, PayoutTransactionIdQuery, PayoutUriQuery } from './payout-rails.query';

/** The payout facts of the registered adapters over the configured rails. */
function factsOf(config: RailsConfig): PayoutFacts {
  return new PayoutFacts(RAIL_ADAPTERS, config.chains);
}

@QueryHandler(PayoutNetworksQuery)
export class PayoutNetworksHandler implements IQueryHandler<PayoutNetworksQuery> {
  private readonly facts: PayoutFacts;
  constructor(@Inject(RailsConfig) config: RailsConfig) {
    this.facts = factsOf(config);
  }

  execute(): Promise<string[]> {
    return Promise.resolve(this.facts.networks());
  }
}

@QueryHandler(CheckPayoutAddressQuery)
export class CheckPayoutAddressHandler implements IQueryHandler<CheckPayoutAddressQuery> {
  private readonly facts: PayoutFacts;
  constructor(@Inject(RailsConfig) config: RailsConfig) {
    this.facts = factsOf(config);
  }

  execute({ mode, network, address }: CheckPayoutAddressQuery): Promise<PayoutAddressCheck> {
    return Promise.resolve(this.facts.checkAddress(mode, network, address));
  }
}

@QueryHandler(PayoutUriQuery)
export class PayoutUriHandler implements IQueryHandler<PayoutUriQuery> {
  private readonly facts: PayoutFacts;
  constructor(@Inject(RailsConfig) config: RailsConfig) {
    this.facts = factsOf(config);
  }

  execute({ mode, network, address, units, amount, rail }: PayoutUriQuery): Promise<string | null> {
    return Promise.resolve(this.facts.uri(mode, network, address, BigInt(units), amount, rail));
  }
}

@QueryHandler(PayoutTransactionIdQuery)
export class PayoutTransactionIdHandler implements IQueryHandler<PayoutTransactionIdQuery> {
  private readonly facts: PayoutFacts;
  constructor(@Inject(RailsConfig) config: RailsConfig) {
    this.facts = factsOf(config);
  }

  execute({ mode, network, txHash }: PayoutTransactionIdQuery): Promise<TransactionIdCheck> {
    return Promise.resolve(this.facts.checkTransactionId(mode, network, txHash));
  }
}
