import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { AuditTrail } from '../../shared/audit/audit-trail';
import { Clock } from '../../shared/time/clock';
import { AuditLogController } from './audit-log.controller';
import { IssueMemberLinkHandler } from './commands/issue-member-link.handler';
import { ConsoleAssets } from './console-assets';
import { ConsoleAuth } from './console-auth.service';
import { ConsoleController } from './console.controller';
import { ConsoleGate } from './console-gate';
import { ConsoleMoneyController } from './console-money.controller';
import { ConsoleExportRoutes } from './exports/console-export-routes';
import { CsvExports } from './exports/csv-exports.service';
import { ExportsController } from './exports/exports.controller';
import { ConsoleCustomersController } from './console-customers.controller';
import { ConsoleCatalogController } from './console-catalog.controller';
import { ConsoleWalletsController } from './console-wallets.controller';
import { ConsoleRepository } from './persistence/console.repository';

/**
 * The management console (decisions §25): the organization's members, their sessions and one-time
 * links, the audit log, and the server-rendered pages at /console. It owns its tables and reaches
 * other modules only through their commands and queries (organizations, invoices, analytics).
 */
@Module({
  controllers: [
    ConsoleController,
    ConsoleMoneyController,
    ConsoleCustomersController,
    ConsoleCatalogController,
    ConsoleWalletsController,
    AuditLogController,
    ExportsController,
  ],
  providers: [ConsoleRepository, ConsoleAuth, ConsoleAssets, ConsoleGate, IssueMemberLinkHandler, CsvExports, ConsoleExportRoutes],
})
export class ConsoleModule implements OnModuleInit {
  constructor(
    @Inject(AuditTrail) private readonly trail: AuditTrail,
    @Inject(ConsoleRepository) private readonly repo: ConsoleRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** The audit log keeps what API keys do on audited routes (`@Audited`) beside the members' console actions. */
  onModuleInit(): void {
    this.trail.register((entry) =>
      this.repo.audit(
        {
          organization_id: entry.organizationId,
          mode: entry.mode,
          actor_type: 'key',
          actor_id: entry.keyId,
          action: entry.action,
          target: entry.target,
          ip: entry.ip,
        },
        this.clock.now(),
      ),
    );
  }
}
