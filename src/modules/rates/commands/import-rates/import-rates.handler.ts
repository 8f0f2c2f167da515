import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { newId } from '../../../../shared/ids/ids';
import { CURRENCIES } from '../../../../shared/money/currency';
import { Clock } from '../../../../shared/time/clock';
import { formatTimestamp } from '../../../../shared/time/time';
import { completeSnapshot, SnapshotFileError } from '../../domain/rate-table';
import { RatesRepository } from '../../persistence/rates.repository';
import { ImportedRates, ImportRatesCommand } from './import-rates.command';

@CommandHandler(ImportRatesCommand)
export class ImportRatesHandler implements ICommandHandler<ImportRatesCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RatesRepository) private readonly repo: RatesRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ snapshot }: ImportRatesCommand): Promise<ImportedRates> {
    return this.tx.run(async (m) => {
      const previousId = await this.repo.snapshotIdAsOf(m, snapshot.takenAt);
      const previous = previousId ? await this.repo.load(m, previousId) : null;
      let usd;
      try {
        usd = completeSnapshot(snapshot, previous);
      } catch (e) {
        if (e instanceof SnapshotFileError) throw new ValidationFailedError(e.fields);
        throw e;
      }
      const id = newId('rates');
      await this.repo.insert(m, id, snapshot.takenAt, snapshot.source, this.clock.now(), usd);
      return {
        id,
        taken_at: formatTimestamp(snapshot.takenAt),
        source: snapshot.source,
        currencies: CURRENCIES.length,
        carried_over: CURRENCIES.filter((c) => !snapshot.rates[c]),
      };
    });
  }
}
