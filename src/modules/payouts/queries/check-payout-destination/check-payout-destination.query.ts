import { Query } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';
import type { PayoutMethod } from '../list-payout-methods/list-payout-methods.query';

/** A destination the payer named: the method chosen, and the address as its network writes it. */
export interface PayoutDestination {
  method: PayoutMethod;
  address: string;
}

/**
 * The payer's destination checked (decisions §19): `providerId` (canonical) must be one of the offered
 * `methods` (ValidationFailedError on provider_id), and `address` an address of its network in the mode,
 * as the network's rail adapter (or address rule) says (ValidationFailedError on address).
 */
export class CheckPayoutDestinationQuery extends Query<PayoutDestination> {
  constructor(
    readonly mode: Mode,
    readonly methods: readonly PayoutMethod[],
    readonly providerId: string,
    readonly address: string,
  ) {
    super();
  }
}
