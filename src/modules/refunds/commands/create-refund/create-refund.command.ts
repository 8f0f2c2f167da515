import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { Currency } from '../../../../shared/money/currency';
import type { Amount } from '../../../../shared/money/money';
import type { RefundRate } from '../../domain/refund-amounts';
import type { RefundView } from '../../dto/refund.views';

export interface CreateRefundInput {
  /** In `currency`; null: everything refundable. */
  amount: Amount | null;
  /** Null: the invoice's currency. */
  currency: Currency | null;
  rate: RefundRate;
  reason: string | null;
  expiresInMinutes: number | undefined;
}

/** A refund of an invoice's completed payments (decisions §19); NotFoundError for another scope's invoice. */
export class CreateRefundCommand extends Command<RefundView> {
  constructor(
    readonly scope: Scope,
    readonly invoiceId: string,
    readonly input: CreateRefundInput,
  ) {
    super();
  }
}
