import { BadRequestError, ValidationFailedError } from '../../../shared/errors/domain-error';

/** More than the invoice's refundable amount (what was paid less what other refunds hold). */
export class RefundExceedsPaidError extends ValidationFailedError {
  constructor(refundableUsd: string) {
    super(
      { amount: `is more than the refundable ${refundableUsd} USD` },
      `The refund is more than was paid and not yet refunded (${refundableUsd} USD)`,
      'refund_exceeds_paid',
    );
  }
}

/** The invoice has no completed payment left to refund. */
export class NothingToRefundError extends BadRequestError {
  constructor() {
    super('Nothing to refund: the invoice has no completed payment that is not already refunded', 'nothing_to_refund', {
      invoice_id: 'has nothing left to refund',
    });
  }
}

/** The reported transaction does not pay the refund's destination the refund's amount. */
export class PayoutMismatchError extends ValidationFailedError {
  constructor(reason: string) {
    super({ tx_hash: reason }, `The transaction does not pay the refund: ${reason}`, 'payout_mismatch');
  }
}

/** The chain's node does not know the reported transaction (on a chain whose node shows unmined ones too). */
export class TxNotFoundError extends ValidationFailedError {
  constructor(network: string) {
    super(
      { tx_hash: `is not a transaction the ${network} node knows, mined or waiting to be mined` },
      'The reported transaction is not known on the chain: send the payout first, then report its hash',
      'tx_not_found',
    );
  }
}
