import { Inject, Logger } from '@nestjs/common';
import { CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { DomainError, NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { RecordProviderPaymentCommand, type RecordedPayment } from '../../../payments';
import { paymentTimeOf } from '../../domain/block-time';
import { UnmatchedTransferView, unmatchedTransferView } from '../../dto/unmatched.views';
import { ChainStateRepository } from '../../persistence/chain-state.repository';
import { UnattributedTransfersRepository } from '../../persistence/unattributed-transfers.repository';
import { RailRegistry } from '../../rail-registry';
import { RetryUnmatchedTransferCommand } from './retry-unmatched-transfer.command';

@CommandHandler(RetryUnmatchedTransferCommand)
export class RetryUnmatchedTransferHandler implements ICommandHandler<RetryUnmatchedTransferCommand> {
  private readonly logger = new Logger('UnmatchedTransfers');

  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(UnattributedTransfersRepository) private readonly transfers: UnattributedTransfersRepository,
    @Inject(ChainStateRepository) private readonly state: ChainStateRepository,
    @Inject(RailRegistry) private readonly rails: RailRegistry,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, id }: RetryUnmatchedTransferCommand): Promise<UnmatchedTransferView> {
    const row = await this.transfers.find(this.tx.manager, scope, id);
    if (!row) throw new NotFoundError('unmatched transfer');
    if (row.status === 'RESOLVED') return this.view(row);
    const invoiceId = row.invoice_id;
    if (invoiceId === null) {
      // Money that reached the wallet without a known reference: no invoice to record a payment for, now or later.
      throw new ValidationFailedError(
        {
          id:
            'reached your wallet without a reference of a payment address, so no invoice is known and it cannot be retried; ' +
            'match it yourself (mark the invoice it was meant for paid, or send the money back)',
        },
        undefined,
        'transfer_without_invoice',
      );
    }
    if (row.orphaned) {
      throw new ValidationFailedError(
        { id: 'a chain reorganization took its block away; it can be retried once the watcher finds the transaction again' },
        undefined,
        'transfer_in_doubt',
      );
    }
    // Recorded unconfirmed: the watcher counts it on its next step as it counts every transfer, under the block the
    // chain calls final and (Solana) after asking where the transaction stands now. A count taken from the cursor
    // here would complete a transfer the chain has not made final, or one whose fork has died since.
    const confirmations = 0;
    const now = await this.clock.nowFor(scope);
    let recorded: RecordedPayment;
    try {
      recorded = await this.commands.execute(
        new RecordProviderPaymentCommand(scope, {
          kind: 'payment',
          invoiceId,
          providerId: row.provider_id,
          price: row.amount,
          idempotencyKey: row.idempotency_key,
          // A block stamped too far ahead of the clock counts as now, as the watcher reports it.
          happenedAt: paymentTimeOf(row.happened_at, now),
          confirmations,
        }),
      );
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      await this.tx.run((m) => this.transfers.refusedAgain(m, scope, id, { code: error.code, text: error.message }, this.clock.now()));
      throw new ValidationFailedError({ id: `the payment was refused again: ${error.message}` }, undefined, 'transfer_not_recorded');
    }
    const resolved = await this.tx.run(async (m) => {
      const locked = await this.transfers.find(m, scope, id, true);
      if (locked?.status === 'OPEN') {
        await this.transfers.resolve(m, scope, id, recorded.paymentId, this.clock.now());
        // The watcher counts the payment's confirmations from now on, and cancels it if a reorg takes the block away.
        if (!(await this.state.findTransfer(m, scope.mode, row.network, row.idempotency_key))) {
          await this.state.saveTransfer(
            m,
            scope.mode,
            row.network,
            {
              idempotency_key: row.idempotency_key,
              organization_id: row.organization_id,
              invoice_id: invoiceId,
              provider_id: row.provider_id,
              payment_id: recorded.paymentId,
              tx_hash: row.tx_hash,
              block_number: row.block_number,
              block_hash: row.block_hash,
              confirmations: recorded.confirmations,
              required_confirmations: recorded.requiredConfirmations,
              orphaned: false,
              cancelled: recorded.status === 'CANCELLED',
              recipient: row.address,
              units: row.units,
            },
            this.clock.now(),
          );
        }
      }
      return this.transfers.find(m, scope, id);
    });
    this.logger.log({
      msg: 'unmatched transfer recorded as a payment',
      event: 'chain_unmatched_resolved',
      organization_id: scope.organizationId,
      mode: scope.mode,
      id,
      payment_id: recorded.paymentId,
      created: recorded.created,
    });
    return this.view(resolved!);
  }

  private view(row: Parameters<typeof unmatchedTransferView>[0]): UnmatchedTransferView {
    return unmatchedTransferView(row, (a) => this.rails.displayAddress(row.network, row.mode, a));
  }
}
