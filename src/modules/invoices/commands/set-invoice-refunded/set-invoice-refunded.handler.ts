import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { renderAmount } from '../../../../shared/money/money';
import { SetInvoiceRefundedCommand } from './set-invoice-refunded.command';

@CommandHandler(SetInvoiceRefundedCommand)
export class SetInvoiceRefundedHandler implements ICommandHandler<SetInvoiceRefundedCommand> {
  async execute({ unitOfWork, scope, invoiceId, refundedUsd }: SetInvoiceRefundedCommand): Promise<void> {
    const result: [unknown[], number] = await unitOfWork.query(
      `UPDATE invoices SET refunded_usd = $4::numeric WHERE id = $1 AND organization_id = $2 AND mode = $3 AND refunded_usd <> $4::numeric`,
      [invoiceId, scope.organizationId, scope.mode, renderAmount(refundedUsd)],
    );
    if (result[1] === 0) {
      const found: unknown[] = await unitOfWork.query(`SELECT 1 FROM invoices WHERE id = $1 AND organization_id = $2 AND mode = $3`, [
        invoiceId,
        scope.organizationId,
        scope.mode,
      ]);
      if (!found.length) throw new NotFoundError('invoice');
    }
  }
}
