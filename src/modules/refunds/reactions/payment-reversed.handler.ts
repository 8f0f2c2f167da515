import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { DurableEventHandler, type DurableEventHandlerInstance, type DurableHandlerContext } from '../../../shared/events/durable-handlers';
import { PaymentEvent } from '../../payments';
import { ReleaseUncoveredRefundsCommand } from '../commands/release-uncovered-refunds/release-uncovered-refunds.command';

/**
 * A COMPLETED payment that is COMPLETED no more (a chain reorganization deeper than its confirmations took
 * it back: `payment.updated` with `previous_attributes.status` COMPLETED) may leave its invoice's open
 * refunds promising money the invoice no longer has: those the rest does not cover are canceled
 * (ReleaseUncoveredRefundsCommand), so a merchant never pays out a refund of money that never arrived.
 *
 * A durable handler: every such event once, in commit order, from any instance and across restarts; the
 * cancellations commit with its cursor (a crash before undoes both and the event is handled again).
 */
@Injectable()
@DurableEventHandler('refunds.payment_reversed', PaymentEvent, ['payment.updated'])
export class PaymentReversedHandler implements DurableEventHandlerInstance<PaymentEvent> {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

  async handle(event: PaymentEvent, context: DurableHandlerContext): Promise<void> {
    const invoiceId = event.object.invoice_id;
    if (!invoiceId || event.previousAttributes?.status !== 'COMPLETED' || event.object.status === 'COMPLETED') return;
    await this.commands.execute(new ReleaseUncoveredRefundsCommand(event.scope, invoiceId, context.manager));
  }
}
