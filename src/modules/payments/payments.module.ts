import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InvoicesModule } from '../invoices';
import { PaymentEvents } from './commands/payment-events';
import { PaymentReports } from './commands/record-provider-payment/payment-reports';
import { RecordProviderPaymentHandler } from './commands/record-provider-payment/record-provider-payment.handler';
import { PaymentsController } from './payments.controller';
import { TestHelpersController } from './test-helpers.controller';
import { TestPaymentController } from './test-payment.controller';
import { MakeTestPaymentHandler } from './commands/make-test-payment/make-test-payment.handler';
import { PaymentRecord } from './persistence/payment.record';
import { PaymentsRepository } from './persistence/payments.repository';
import { GetPaymentHandler } from './queries/get-payment/get-payment.handler';
import { ListInvoicePaymentsHandler } from './queries/list-invoice-payments/list-invoice-payments.handler';
import { InvoicePaymentValuesHandler } from './queries/invoice-payment-values/invoice-payment-values.handler';
import { ListPaymentsHandler } from './queries/list-payments/list-payments.handler';
import { TransactionRunner } from '../../shared/db/transaction-runner';
import { OtherModeIds } from '../../shared/ids/other-mode-ids';
import { PartitionRetention } from '../../shared/db/partition-retention';

/**
 * Payments: what providers report against invoices (RecordProviderPaymentCommand, which also moves
 * the invoice's state in the same transaction), the list and read endpoints, and the test-mode
 * simulation (POST /test_helpers/payments with a test key; POST /invoices/{id}/test_payment, the
 * checkout's keyless test-payment control). Public surface (index.ts): RecordProviderPaymentCommand, ListPaymentsQuery, GetPaymentQuery;
 * it answers the invoices module's ListInvoicePaymentsQuery (the invoice read's `payments` expansion).
 */
@Module({
  imports: [TypeOrmModule.forFeature([PaymentRecord]), InvoicesModule],
  controllers: [PaymentsController, TestHelpersController, TestPaymentController],
  providers: [
    PaymentsRepository,
    PaymentEvents,
    PaymentReports,
    RecordProviderPaymentHandler,
    MakeTestPaymentHandler,
    ListPaymentsHandler,
    GetPaymentHandler,
    ListInvoicePaymentsHandler,
    InvoicePaymentValuesHandler,
  ],
})
export class PaymentsModule implements OnModuleInit {
  constructor(
    @Inject(OtherModeIds) private readonly otherModeIds: OtherModeIds,
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(PaymentsRepository) private readonly payments: PaymentsRepository,
    @Inject(PartitionRetention) private readonly retention: PartitionRetention,
  ) {}

  /** Its ids' owner for a 404's other-mode hint (decisions §1): asked only after a lookup by id failed. */
  onModuleInit(): void {
    this.otherModeIds.register('payment', 'payment_not_found', async (scope, id) => (await this.payments.find(this.tx.manager, scope, id)) !== null);
    // The rate snapshot a payment's rates were taken from outlives its day of rate history (the rates module's plan `rate-history`).
    this.retention.addReference('rate-history', { table: 'payments', column: 'rates_snapshot_id' });
  }
}
