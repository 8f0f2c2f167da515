import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminController } from './admin.controller';
import { AdminTokenGuard } from './admin.guard';
import { ApiKeyGuard } from './api-key.guard';
import { AuthController } from './auth.controller';
import { CreateApiKeyHandler } from './commands/create-api-key/create-api-key.handler';
import { CreateOrganizationHandler } from './commands/create-organization/create-organization.handler';
import { RevokeApiKeyHandler } from './commands/revoke-api-key/revoke-api-key.handler';
import { RollApiKeyHandler } from './commands/roll-api-key/roll-api-key.handler';
import { ApiKeyUsage } from './usage/api-key-usage.service';
import { ApiKeyCache } from './persistence/api-key-cache';
import { ApiKeyRecord } from './persistence/api-key.record';
import { OrganizationRecord } from './persistence/organization.record';
import { OrganizationsRepository } from './persistence/organizations.repository';
import { ListApiKeysHandler } from './queries/list-api-keys/list-api-keys.handler';
import { ResolveApiKeyHandler } from './queries/resolve-api-key/resolve-api-key.handler';
import { CountOrganizationsHandler } from './queries/count-organizations/count-organizations.handler';
import { ListOrganizationsHandler } from './queries/list-organizations/list-organizations.handler';
import { GetOrganizationProfileHandler } from './queries/get-organization-profile/get-organization-profile.handler';

@Module({
  imports: [TypeOrmModule.forFeature([OrganizationRecord, ApiKeyRecord])],
  controllers: [AuthController, AdminController],
  providers: [
    OrganizationsRepository,
    ApiKeyCache,
    CreateOrganizationHandler,
    CreateApiKeyHandler,
    RevokeApiKeyHandler,
    RollApiKeyHandler,
    ApiKeyUsage,
    ListApiKeysHandler,
    GetOrganizationProfileHandler,
    ResolveApiKeyHandler,
    CountOrganizationsHandler,
    ListOrganizationsHandler,
    AdminTokenGuard,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
  ],
})
export class OrganizationsModule {}
