import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Scope } from '../../../shared/auth/request-context';
import { InvoicesConfig } from '../invoices.config';
import { EventOutbox, PendingEvent } from '../../../shared/events/outbox';
import { InvoiceView, invoiceView, movedView } from '../dto/invoice.views';
import type { InvoiceRecord } from '../persistence/invoice.record';
import { InvoicesRepository } from '../persistence/invoices.repository';
import { INVOICE_EVENTS } from '../events/invoice.events';

/**
 * Records the invoices' events in the writer's transaction, with the invoice as
 * `POST /invoices/{id}` shows it to the merchant (no expansions).
 */
@Injectable()
export class InvoiceEvents {
  constructor(
    @Inject(InvoicesRepository) private readonly repo: InvoicesRepository,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
    @Inject(InvoicesConfig) private readonly config: InvoicesConfig,
  ) {}

  /** The merchant's view of an invoice record, to pass as `before` to `changed`. */
  view(invoice: InvoiceRecord): InvoiceView {
    return invoiceView(invoice, false, this.config.INVOICE_MONITORING_MINUTES);
  }

  /** `invoice.expired`: the (locked) invoice just got substatus EXPIRED (docs/timing.md). */
  async expired(m: EntityManager, scope: Scope, invoiceId: string): Promise<void> {
    const record = await this.repo.find(m, scope, invoiceId);
    if (!record) throw new Error(`invoice ${invoiceId} vanished inside its own transaction`);
    await this.outbox.record(m, scope, INVOICE_EVENTS['invoice.expired'], this.view(record));
  }

  /** `invoice.created`, its row to be written by the invoice's own insert (`InvoicesRepository.insertInvoice`); `written` after it. */
  created(scope: Scope, invoice: InvoiceRecord): PendingEvent {
    return this.outbox.prepare(scope, INVOICE_EVENTS['invoice.created'], this.view(invoice));
  }

  /** After the statement that wrote a prepared event's row: the event is published once it commits. */
  async written(m: EntityManager, event: PendingEvent): Promise<void> {
    await this.outbox.written(m, event);
  }

  /**
   * After a change of the (locked) invoice: `invoice.updated` with the changed fields' earlier
   * values, then `invoice.completed` or `invoice.voided` when it reached that state.
   */
  async changed(m: EntityManager, scope: Scope, before: InvoiceView): Promise<void> {
    const record = await this.repo.find(m, scope, before.id);
    if (!record) throw new Error(`invoice ${before.id} vanished inside its own transaction`);
    for (const event of this.changes(scope, before, record)) {
      await this.outbox.insert(m, event);
      await this.outbox.written(m, event);
    }
  }

  /**
   * The events `changed` records, for a writer that knows the invoice's record after its change
   * without reading it back (the row it locked, with the columns it writes): `invoice.updated` with
   * the changed fields' earlier values, then `invoice.completed` or `invoice.voided`. None when
   * nothing the merchant sees changed. The writer inserts their rows (the first with its own update,
   * `InvoicesRepository.updateStatus`) and then calls `written` for each, in order.
   */
  changes(scope: Scope, before: InvoiceView, afterRecord: InvoiceRecord): PendingEvent[] {
    return this.between(scope, before, this.view(afterRecord));
  }

  /**
   * `changes` for a status move of the (locked) invoice `current` (a payment's settlement): the
   * record after it is `current` with the move's status, substatus and updated time, so its view is
   * the view before with those fields (movedView), not rendered again.
   */
  statusMoved(scope: Scope, current: InvoiceRecord, move: Pick<InvoiceRecord, 'status' | 'substatus' | 'updatedAt'>): PendingEvent[] {
    const before = this.view(current);
    return this.between(scope, before, movedView(before, move));
  }

  /** The events of a change from the view `before` to the view `after` (changes). */
  private between(scope: Scope, before: InvoiceView, after: InvoiceView): PendingEvent[] {
    const previous: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(before)) {
      if (!sameJson(value, (after as unknown as Record<string, unknown>)[key])) previous[key] = value;
    }
    if (Object.keys(previous).length === 0) return [];
    const events = [this.outbox.prepare(scope, INVOICE_EVENTS['invoice.updated'], after, { previousAttributes: previous })];
    if (after.status !== before.status && after.status === 'COMPLETED') {
      events.push(this.outbox.prepare(scope, INVOICE_EVENTS['invoice.completed'], after, { previousAttributes: previous }));
    }
    if (after.status !== before.status && after.status === 'VOIDED') {
      events.push(this.outbox.prepare(scope, INVOICE_EVENTS['invoice.voided'], after, { previousAttributes: previous }));
    }
    return events;
  }

  /** Inserts a prepared event's row by itself (the events `changes` returned beyond the first). */
  insert(m: EntityManager, event: PendingEvent): Promise<void> {
    return this.outbox.insert(m, event);
  }
}

/**
 * Whether two values of an invoice's view read the same in JSON. Most fields are strings, numbers or
 * null and compare as they are; only objects and arrays (metadata) are written out.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
