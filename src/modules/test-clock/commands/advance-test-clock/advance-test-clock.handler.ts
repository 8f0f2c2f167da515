import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { TestClocksRepository } from '../../persistence/test-clocks.repository';
import { AdvanceTestClockCommand } from './advance-test-clock.command';

@CommandHandler(AdvanceTestClockCommand)
export class AdvanceTestClockHandler implements ICommandHandler<AdvanceTestClockCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(TestClocksRepository) private readonly repo: TestClocksRepository,
  ) {}

  execute({ scope, ms }: AdvanceTestClockCommand): Promise<number> {
    if (scope.mode !== 'test') throw new RangeError("only a test mode's clock moves");
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError('the clock only moves forward by a whole number of milliseconds');
    return this.tx.runAlone((m) => this.repo.advance(m, scope, ms));
  }
}
