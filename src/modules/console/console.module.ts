import { Module } from '@nestjs/common';
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
export class ConsoleModule {}
