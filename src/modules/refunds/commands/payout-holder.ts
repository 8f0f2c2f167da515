import { type PayoutHolder, payoutRecipient } from '../../payouts';
import type { RefundRow } from '../persistence/refunds.repository';

/** A refund as the payouts module's transfers name their holder: its id, scope, network, and what it pays (address and asset). */
export function payoutHolderOf(refund: RefundRow): PayoutHolder {
  return {
    id: refund.id,
    organization_id: refund.organization_id,
    mode: refund.mode,
    network: refund.network!,
    recipient: payoutRecipient(refund.network!, refund.address!, refund.token_contract),
  };
}
