import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { SubscriptionView } from '../../dto/subscription.view';

export interface CreateSubscriptionInput {
  productId: string;
  billingSchemaId: string;
  customerEmail: string;
  customerName: string | null;
  quantity: number;
  /** Default: now (the scope's now: a moved test clock in test mode). */
  startsAt: Date | null;
  metadata: Record<string, string>;
}

/** Starts a subscription to a RECURRING billing schema of an active product version. */
export class CreateSubscriptionCommand extends Command<SubscriptionView> {
  constructor(
    readonly scope: Scope,
    readonly input: CreateSubscriptionInput,
  ) {
    super();
  }
}
