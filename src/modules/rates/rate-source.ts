import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { AppConfig } from '../../shared/config/app-config';
import type { SnapshotInput } from './domain/rate-table';
import { ImportRatesCommand } from './commands/import-rates/import-rates.command';

/**
 * Port for a live exchange-rate feed. A deployment provides an implementation (bound to this
 * token in RatesModule) that returns the latest rates; the refresher imports them every
 * RATES_REFRESH_SECONDS through the same command as `rates:import`. By default there is no
 * feed and the service runs on imported or bundled snapshots.
 */
export abstract class RateSource {
  abstract latest(): Promise<SnapshotInput>;
}

export const RATE_SOURCE = Symbol('RATE_SOURCE');

@Injectable()
export class RatesRefresher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Rates');
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(RATE_SOURCE) private readonly source: RateSource | null,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const seconds = this.config.RATES_REFRESH_SECONDS;
    if (!this.source || seconds <= 0) return;
    this.timer = setInterval(() => void this.refresh(), seconds * 1000);
    this.timer.unref();
  }

  async refresh(): Promise<void> {
    if (!this.source) return;
    try {
      const snapshot = await this.source.latest();
      const imported = await this.commands.execute(new ImportRatesCommand(snapshot));
      this.logger.log({ snapshot: imported.id, taken_at: imported.taken_at }, 'rates refreshed');
    } catch (e) {
      this.logger.warn({ err: (e as Error).message }, 'rates refresh failed; keeping the current snapshot');
    }
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
