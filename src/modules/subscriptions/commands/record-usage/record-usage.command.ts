import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { UsageEventView } from '../../dto/subscription.view';

export interface UsageEventInput {
  /** The caller's unique id of the event: a repeat is the same event, never counted twice. */
  id: string;
  subscriptionId: string;
  metricKey: string;
  /** Exact decimal text; default 1. */
  value: string;
  uniqueKey: string | null;
  /** Default: now (the scope's now). */
  timestamp: Date | null;
}

export interface RecordedUsage {
  event: UsageEventView;
  /** False when an event with this id was recorded before (then `event` is that first record). */
  created: boolean;
}

/**
 * Records usage events (1 to 100) in one statement. Fields are checked for every event first (field
 * paths `events.<i>.<field>` for a batch); nothing is recorded when one is wrong.
 */
export class RecordUsageCommand extends Command<RecordedUsage[]> {
  constructor(
    readonly scope: Scope,
    readonly events: UsageEventInput[],
    /** Prefix of field paths in errors: '' for a single event, 'events.' for a batch. */
    readonly batch: boolean,
  ) {
    super();
  }
}
