import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { PublicOperator } from '../../shared/auth/auth.decorators';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { AdminTokenGuard } from './admin.guard';
import { CreateApiKeyCommand } from './commands/create-api-key/create-api-key.command';
import { CreateOrganizationCommand } from './commands/create-organization/create-organization.command';
import { RevokeApiKeyCommand } from './commands/revoke-api-key/revoke-api-key.command';
import {
  ApiKeyDto,
  CreateApiKeyRequestDto,
  CreatedOrganizationDto,
  CreateOrganizationRequestDto,
  IssuedKeyDto,
  RevokeApiKeyRequestDto,
  RevokedKeysDto,
} from './dto/organization.dto';
import { ListApiKeysQuery } from './queries/list-api-keys/list-api-keys.query';

/** Operator API: the same commands as the CLI, over HTTP, for provisioning tools. */
@ApiTags('Operator')
@ApiSecurity('admin_token')
@Controller('admin')
@PublicOperator()
@UseGuards(AdminTokenGuard)
export class AdminController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  @Post('organizations')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an organization with a test key and a live key (shown once)' })
  @ApiBody({ type: CreateOrganizationRequestDto, examples: { organization: { value: { name: 'Acme' } } } })
  @ApiEnvelope({
    status: 201,
    type: CreatedOrganizationDto,
    message: 'Organization created',
    example: {
      organization_id: 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
      name: 'Acme',
      test_key: 'sk_test_4eC39HqLyjWDarjtT1zdp7dcQ0x8mNbV2rLs9aPk',
      live_key: 'sk_live_9hF2kLmN3pQrS5tUvWxYz1A2b3C4d5E6f7G8h9J0',
    },
  })
  @ApiErrors(400, 401)
  async createOrganization(@Body() body: CreateOrganizationRequestDto) {
    return reply(await this.commands.execute(new CreateOrganizationCommand(body.name)), 'Organization created');
  }

  @Post('organizations/:id/keys')
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue another key for an organization' })
  @ApiBody({ type: CreateApiKeyRequestDto, examples: { read_only_test_key: { value: { mode: 'test', read_only: true } } } })
  @ApiEnvelope({
    status: 201,
    type: IssuedKeyDto,
    message: 'API key created',
    example: {
      id: 'key_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11',
      organization_id: 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
      mode: 'test',
      read_only: true,
      prefix: 'sk_test_Ab12Cd',
      key: 'sk_test_Ab12CdEf34GhIj56KlMn78OpQr90StUvWxYz12',
      name: '',
      created_at: '2026-11-21 10:00:00',
    },
  })
  @ApiErrors(400, 401, 404)
  async createKey(@Param('id') id: string, @Body() body: CreateApiKeyRequestDto) {
    return reply(await this.commands.execute(new CreateApiKeyCommand(id, body.mode, body.read_only ?? false)), 'API key created');
  }

  @Get('organizations/:id/keys')
  @ApiOperation({ summary: 'List the keys of an organization (prefixes only)' })
  @ApiEnvelope({
    type: ApiKeyDto,
    isArray: true,
    example: [
      {
        id: 'key_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11',
        prefix: 'sk_test_Ab12Cd',
        mode: 'test',
        read_only: false,
        created_at: '2026-11-21 10:00:00',
        revoked_at: null,
        name: 'Shop backend',
        expires_at: null,
        rolled_to: null,
        last_used_at: '2026-11-21 10:05:00',
      },
    ],
  })
  @ApiErrors(401, 404)
  listKeys(@Param('id') id: string) {
    return this.queries.execute(new ListApiKeysQuery(id));
  }

  @Post('keys/revoke')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Revoke a key by its full value, or by its display prefix and organization',
    description:
      'A display prefix needs `organization_id` (400 with `validator.organization_id` without it): prefixes are not unique across ' +
      'organizations. A prefix matching several active keys of the organization is refused (400, `validator.key`); give the full key.',
  })
  @ApiEnvelope({
    type: RevokedKeysDto,
    message: 'API key revoked',
    example: {
      revoked: [{ id: 'key_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11', prefix: 'sk_test_Ab12Cd', organization_id: 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' }],
    },
  })
  @ApiBody({
    type: RevokeApiKeyRequestDto,
    examples: {
      by_prefix: { value: { key: 'sk_test_Ab12Cd', organization_id: 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f' } },
      by_key: { value: { key: 'sk_test_Ab12CdEf34GhIj56KlMn78OpQr90StUvWxYz12' } },
    },
  })
  @ApiErrors(400, 401, 404)
  async revoke(@Body() body: RevokeApiKeyRequestDto) {
    return reply(await this.commands.execute(new RevokeApiKeyCommand(body.key, body.organization_id)), 'API key revoked');
  }
}
