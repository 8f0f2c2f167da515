import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DbNotifications } from '../../../../shared/db/notifications';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { newId } from '../../../../shared/ids/ids';
import { CURRENCIES } from '../../../../shared/money/currency';
import { Clock } from '../../../../shared/time/clock';
import { formatTimestamp } from '../../../../shared/time/time';
import { completeSnapshot, SnapshotFileError, type SnapshotInput } from '../../domain/rate-table';
import { RatesRepository } from '../../persistence/rates.repository';
import { RatesAsOfHandler, RATES_CHANGED } from '../../queries/rates-as-of/rates-as-of.handler';
import { ImportedRates, ImportRatesCommand } from './import-rates.command';

@CommandHandler(ImportRatesCommand)
export class ImportRatesHandler implements ICommandHandler<ImportRatesCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RatesRepository) private readonly repo: RatesRepository,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(DbNotifications) private readonly notifications: DbNotifications,
    @Inject(RatesAsOfHandler) private readonly ratesAsOf: RatesAsOfHandler,
  ) {}

  async execute({ snapshot }: ImportRatesCommand): Promise<ImportedRates> {
    return (await this.write(snapshot)) as ImportedRates;
  }

  /**
   * Writes the snapshot under the writers' lock. With `unlessTakenAfter`, writes nothing (and answers
   * null) when a snapshot taken after that time exists by then: another instance has just refreshed.
   */
  async write(snapshot: SnapshotInput, unlessTakenAfter?: Date): Promise<ImportedRates | null> {
    const imported = await this.notifications.broadcast(RATES_CHANGED, (payload) =>
      this.tx.run(async (m) => {
        const newest = await this.repo.lockWriters(m, this.clock.now());
        if (unlessTakenAfter && newest && newest > unlessTakenAfter) return null;
        const previousId = await this.repo.snapshotIdAsOf(m, snapshot.takenAt);
        const previous = previousId ? await this.repo.load(m, previousId) : null;
        let rates;
        try {
          rates = completeSnapshot(snapshot, previous);
        } catch (e) {
          if (e instanceof SnapshotFileError) throw new ValidationFailedError(e.fields);
          throw e;
        }
        const id = newId('rates');
        await this.repo.insert(m, id, snapshot.takenAt, snapshot.source, this.clock.now(), rates);
        // Every process forgets which snapshot is current when this commits.
        await this.notifications.notify(m, RATES_CHANGED, payload);
        return {
          id,
          taken_at: formatTimestamp(snapshot.takenAt),
          source: snapshot.source,
          currencies: CURRENCIES.length,
          carried_over: CURRENCIES.filter((c) => !snapshot.rates[c]),
        };
      }),
    );
    this.ratesAsOf.forget();
    return imported;
  }
}
