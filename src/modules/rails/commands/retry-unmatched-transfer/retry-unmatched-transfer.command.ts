import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { UnmatchedTransferView } from '../../dto/unmatched.views';

/**
 * Sends an unmatched transfer through the payments module's command again (after the merchant
 * enabled the provider again, for instance), with the chain idempotency key
 * `<network>:<tx_hash>:<log_index|native>`: a payment is recorded once however often it is retried.
 * On success the transfer is RESOLVED with the payment's id, and the watcher counts its
 * confirmations from then on; a RESOLVED transfer is answered as it is.
 * Errors: NotFoundError (not the organization's in this mode), ValidationFailedError with codes
 * transfer_in_doubt (a reorganization took its block away), transfer_without_invoice (money that reached
 * the wallet without a known reference: no invoice to record it for) and transfer_not_recorded (refused
 * again; the transfer keeps the new reason).
 */
export class RetryUnmatchedTransferCommand extends Command<UnmatchedTransferView> {
  constructor(
    readonly scope: Scope,
    readonly id: string,
  ) {
    super();
  }
}
