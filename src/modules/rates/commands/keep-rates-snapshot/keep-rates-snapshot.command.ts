import { Command } from '@nestjs/cqrs';
import type { EntityManager } from 'typeorm';

/**
 * Sent by a write that records a rate snapshot id (a payment's, a refund's), in its transaction, before the
 * row that holds it: when the snapshot's day of history may be dropped soon (a payment that happened about
 * RATES_HISTORY_RETENTION_DAYS ago, valued at the rates in force then), it is copied into the kept tables in
 * that transaction, so the rates the write records outlive their day even when the retention job drops it
 * while the write is open. A snapshot whose day is not due (every snapshot of the last few weeks: the
 * rates in force now among them) costs nothing: no statement.
 *
 * RatesSnapshotGoneError when the day was dropped before and the snapshot with it: nothing was written, and
 * the write chooses its rates again (the rates module has forgotten the snapshot) and runs again.
 */
export class KeepRatesSnapshotCommand extends Command<void> {
  constructor(
    readonly unitOfWork: EntityManager,
    readonly snapshotId: string,
  ) {
    super();
  }
}
