import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Clock } from '../../../../shared/time/clock';
import { RatesSnapshotGoneError } from '../../domain/rates.errors';
import { RatesRepository } from '../../persistence/rates.repository';
import { RatesAsOfHandler } from '../../queries/rates-as-of/rates-as-of.handler';
import { goesSoon } from '../../rate-history-days';
import { RatesConfig } from '../../rates.config';
import { KeepRatesSnapshotCommand } from './keep-rates-snapshot.command';

@CommandHandler(KeepRatesSnapshotCommand)
export class KeepRatesSnapshotHandler implements ICommandHandler<KeepRatesSnapshotCommand> {
  /** Snapshots found in the kept tables, committed: they stay there, so a later write of them needs no statement. */
  private readonly kept = new Set<string>();
  private static readonly REMEMBERED = 1024;

  constructor(
    @Inject(RatesRepository) private readonly repo: RatesRepository,
    @Inject(RatesAsOfHandler) private readonly ratesAsOf: RatesAsOfHandler,
    @Inject(RatesConfig) private readonly config: RatesConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ unitOfWork, snapshotId }: KeepRatesSnapshotCommand): Promise<void> {
    // The retention job's own clock and setting: real time, this module's RATES_HISTORY_RETENTION_DAYS.
    if (this.kept.has(snapshotId) || !goesSoon(snapshotId, this.clock.now(), this.config.RATES_HISTORY_RETENTION_DAYS)) return;
    const found = await this.repo.keepSnapshot(unitOfWork, snapshotId);
    if (found === 'kept') {
      this.kept.add(snapshotId);
      if (this.kept.size > KeepRatesSnapshotHandler.REMEMBERED) this.kept.delete(this.kept.values().next().value!);
    } else if (found === 'gone') {
      // Remembered as the rates in force over an interval, or loaded: chosen again, they are read from what is left.
      this.ratesAsOf.forget();
      this.repo.forget(snapshotId);
      throw new RatesSnapshotGoneError(snapshotId);
    }
  }
}
