import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { TestClocksRepository } from '../../persistence/test-clocks.repository';
import { AdvanceTestClockCommand } from './advance-test-clock.command';

@CommandHandler(AdvanceTestClockCommand)
export class AdvanceTestClockHandler implements ICommandHandler<AdvanceTestClockCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(TestClocksRepository) private readonly repo: TestClocksRepository,
  ) {}

  async execute({ scope, ms }: AdvanceTestClockCommand): Promise<number> {
    if (scope.mode !== 'test') throw new RangeError("only a test mode's clock moves");
    if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError('the clock only moves forward by a whole number of milliseconds');
    if (ms > MAX_OFFSET_MS) throw tooFar();
    const offset = await this.tx.runAlone((m) => this.repo.advance(m, scope, ms, MAX_OFFSET_MS));
    if (offset === null) throw tooFar();
    return offset;
  }
}

/**
 * How far ahead of real time a test clock may run: a hundred years, far past any subscription or window a
 * test walks through, and far from the dates the service can write (year 9999) or compute (JavaScript's).
 */
export const MAX_OFFSET_MS = 100 * 366 * 24 * 3600 * 1000;

function tooFar(): ValidationFailedError {
  return new ValidationFailedError({
    advance_seconds: 'would put the test clock more than 100 years ahead of real time; it never goes back, so use a new organization for a fresh clock',
  });
}
