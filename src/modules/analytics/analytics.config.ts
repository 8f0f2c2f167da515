import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { toInt } from '../../shared/config/env-transforms';
import { loadModuleConfig } from '../../shared/config/module-config';

/** The analytics module's settings. */
export class AnalyticsConfig {
  /**
   * How often the analytics rollups fold the changes writers appended (seconds; 0: never, the
   * dashboard still folds its organization's changes before it reads). One instance at a time folds.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  ANALYTICS_FOLD_SECONDS = 1;
}

export function loadAnalyticsConfig(env: NodeJS.ProcessEnv = process.env): AnalyticsConfig {
  return loadModuleConfig(AnalyticsConfig, env);
}
