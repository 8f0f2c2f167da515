import { Query } from '@nestjs/cqrs';
import type { RefundClaimView } from '../../dto/refund.views';

/** What the claim page says of whom the refund is from and for what (payer-safe: the merchant's name, the invoice's id and items). */
export interface ClaimContextView {
  merchant: { name: string };
  invoice: { id: string; items: Array<{ name: string | null; quantity: number }> };
}

export type RefundClaimState = RefundClaimView & ClaimContextView & { mode: 'test' | 'live' };

/** A refund as its payer sees it through the claim token (null: no such claim), with the methods offered, the merchant and the invoice. */
export class GetRefundClaimQuery extends Query<RefundClaimState | null> {
  constructor(readonly token: string) {
    super();
  }
}
