import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ServiceUnavailableError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import type { RateTable } from '../../domain/rate-table';
import { RatesRepository } from '../../persistence/rates.repository';
import { RatesAsOfQuery } from './rates-as-of.query';

@QueryHandler(RatesAsOfQuery)
export class RatesAsOfHandler implements IQueryHandler<RatesAsOfQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(RatesRepository) private readonly repo: RatesRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ at, snapshotId }: RatesAsOfQuery): Promise<RateTable> {
    const m = this.tx.manager;
    const id = snapshotId ?? (await this.repo.snapshotIdAsOf(m, at ?? this.clock.now()));
    const table = id ? await this.repo.load(m, id) : null;
    if (!table) throw new ServiceUnavailableError('No exchange rates are loaded');
    return table;
  }
}
