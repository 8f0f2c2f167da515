import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { toInt } from '../../shared/config/env-transforms';
import { loadModuleConfig } from '../../shared/config/module-config';

/** The events module's settings: how long the outbox's events are kept. */
export class EventsConfig {
  /**
   * Days of events kept (0: all). A month of events is dropped this many days after it ended, once every
   * durable handler has read all of it and no webhook delivery of its events is kept.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(36_500)
  EVENTS_RETENTION_DAYS = 90;
}

export function loadEventsConfig(env: NodeJS.ProcessEnv = process.env): EventsConfig {
  return loadModuleConfig(EventsConfig, env);
}
