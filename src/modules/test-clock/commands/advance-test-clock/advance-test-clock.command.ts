import { Command } from '@nestjs/cqrs';
import type { ClockScope } from '../../../../shared/time/clock';

/** Moves the test clock of one organization's test mode forward by `ms` (a whole number >= 0); answers the new offset in ms. */
export class AdvanceTestClockCommand extends Command<number> {
  constructor(
    readonly scope: ClockScope,
    readonly ms: number,
  ) {
    super();
  }
}
