import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, RateLimitedError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { CalculatePricesQuery } from '../../../quotes';
import { calculationLines } from '../../domain/calculation-rows';
import type { InvoiceStatus } from '../../domain/invoice-status';
import { buildCalculationRecords } from '../../persistence/calculation-records';
import { itemInputsOf } from '../../persistence/item-inputs';
import { InvoicesRepository } from '../../persistence/invoices.repository';
import { InvoiceClocks } from '../../invoice-clocks.service';
import { isPastExpiry } from '../../domain/invoice-timing';
import { CurrencyChangeDecision, decideCurrencyChange } from '../../domain/currency-change';
import { formatTimestamp } from '../../../../shared/time/time';
import { InvoiceEvents } from '../invoice-events';
import type { InvoiceUpdated } from '../invoice-change';
import { ChangeInvoiceCurrencyCommand } from './change-invoice-currency.command';

@CommandHandler(ChangeInvoiceCurrencyCommand)
export class ChangeInvoiceCurrencyHandler implements ICommandHandler<ChangeInvoiceCurrencyCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(InvoiceClocks) private readonly clocks: InvoiceClocks,
    @Inject(InvoiceEvents) private readonly events: InvoiceEvents,
  ) {}

  async execute({ access, invoiceId, currency }: ChangeInvoiceCurrencyCommand): Promise<InvoiceUpdated> {
    const byPayer = access === null;
    const stored = await this.repo.find(this.tx.manager, access, invoiceId);
    if (!stored) throw new NotFoundError('invoice');
    // Invoice timing runs on the invoice's own scope's clock (a test mode's may have been moved);
    // the payers' change count (an abuse cap) on real time.
    const found = this.clocks.current(stored, await this.clocks.nowFor(stored));
    assertPending(found.status);
    assertNotExpired(found.expiresAt, await this.clocks.nowFor(stored));
    // Settle the cheap cases before quoting; the decision is taken again under the lock below.
    const early = decideCurrencyChange({
      current: found.currency,
      requested: currency,
      byPayer,
      now: this.clock.now(),
      window: byPayer ? await this.repo.currencyChangeWindow(this.tx.manager, found) : null,
    });
    if (early.kind !== 'apply') return settled(early, found.id, currency);
    const scope: Scope = { organizationId: found.organizationId as Scope['organizationId'], mode: found.mode };
    const items = await this.repo.items(this.tx.manager, found);
    const calc = await this.queries.execute(new CalculatePricesQuery(scope, itemInputsOf(items), currency, undefined, true, true));
    const now = await this.clocks.nowFor(scope);
    return this.tx.run(async (m) => {
      const locked = await this.repo.lock(m, scope, invoiceId);
      if (!locked) throw new NotFoundError('invoice');
      const at = await this.clocks.nowFor(scope, m);
      const { invoice } = await this.clocks.applyDue(m, locked, at);
      assertPending(invoice.status);
      assertNotExpired(invoice.expiresAt, at);
      const decision = decideCurrencyChange({
        current: invoice.currency,
        requested: calc.currency,
        byPayer,
        now: this.clock.now(),
        window: byPayer ? await this.repo.currencyChangeWindow(m, invoice) : null,
      });
      if (decision.kind !== 'apply') return settled(decision, invoice.id, calc.currency);
      if (decision.window) await this.repo.saveCurrencyChangeWindow(m, invoice, decision.window);
      const calculations = buildCalculationRecords(invoice, items, calculationLines(calc), now);
      const before = this.events.view(invoice);
      await this.repo.replaceCalculations(
        m,
        invoice,
        calculations,
        {
          currency: calc.currency,
          price: calc.total.price,
          priceUsd: calc.total.priceUsd,
          ratesSnapshotId: calc.rates.snapshotId,
          ratesTakenAt: calc.rates.takenAt,
        },
        now,
      );
      await this.events.changed(m, scope, before);
      return { id: invoice.id, message: `Invoice currency changed to ${calc.currency}` };
    });
  }
}

/** The answer to a currency change that does not go ahead: already set (200, nothing written) or capped (429). */
function settled(decision: Exclude<CurrencyChangeDecision, { kind: 'apply' }>, id: string, currency: string): InvoiceUpdated {
  if (decision.kind === 'refused') throw new RateLimitedError(decision.retryAfterSeconds);
  return { id, message: `Invoice currency is already ${currency}; nothing changed` };
}

/** After expires_at the quoted rates no longer hold and no new payment is expected: no re-quote either. */
function assertNotExpired(expiresAt: Date | null, now: Date): void {
  if (isPastExpiry(expiresAt, now)) {
    throw new ValidationFailedError(
      { currency: `cannot be changed: the invoice expired at ${formatTimestamp(expiresAt!)}` },
      'The invoice has expired; its currency can no longer be changed',
      'invoice_expired',
    );
  }
}

function assertPending(status: InvoiceStatus): void {
  if (status !== 'PENDING') {
    throw new ValidationFailedError(
      { currency: `can only be changed while the invoice is PENDING (it is ${status})` },
      `The currency of an invoice can only be changed while it is PENDING (it is ${status})`,
      'invalid_state_transition',
    );
  }
}
