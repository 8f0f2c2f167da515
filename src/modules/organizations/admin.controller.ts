import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../shared/auth/auth.decorators';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { AdminTokenGuard } from './admin.guard';
import { CreateApiKeyCommand } from './commands/create-api-key/create-api-key.command';
import { CreateOrganizationCommand } from './commands/create-organization/create-organization.command';
import { RevokeApiKeyCommand } from './commands/revoke-api-key/revoke-api-key.command';
import { CreateApiKeyRequestDto, CreatedOrganizationDto, CreateOrganizationRequestDto, RevokeApiKeyRequestDto } from './dto/organization.dto';
import { ListApiKeysQuery } from './queries/list-api-keys/list-api-keys.query';

/** Operator API: the same commands as the CLI, over HTTP, for provisioning tools. */
@ApiTags('Operator')
@ApiHeader({ name: 'X-Admin-Token', required: true, description: 'The ADMIN_API_TOKEN of the deployment' })
@Controller('admin')
@Public()
@UseGuards(AdminTokenGuard)
export class AdminController {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus, @Inject(QueryBus) private readonly queries: QueryBus) {}

  @Post('organizations')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an organization with a test key and a live key (shown once)' })
  @ApiEnvelope({ status: 201, type: CreatedOrganizationDto })
  @ApiErrors(400, 401)
  async createOrganization(@Body() body: CreateOrganizationRequestDto) {
    return reply(await this.commands.execute(new CreateOrganizationCommand(body.name)), 'Organization created');
  }

  @Post('organizations/:id/keys')
  @HttpCode(201)
  @ApiOperation({ summary: 'Issue another key for an organization' })
  @ApiErrors(400, 401, 404)
  async createKey(@Param('id') id: string, @Body() body: CreateApiKeyRequestDto) {
    return reply(await this.commands.execute(new CreateApiKeyCommand(id, body.mode, body.read_only ?? false)), 'API key created');
  }

  @Get('organizations/:id/keys')
  @ApiOperation({ summary: 'List the keys of an organization (prefixes only)' })
  @ApiErrors(401, 404)
  listKeys(@Param('id') id: string) {
    return this.queries.execute(new ListApiKeysQuery(id));
  }

  @Post('keys/revoke')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a key by its full value or display prefix' })
  @ApiErrors(400, 401, 404)
  async revoke(@Body() body: RevokeApiKeyRequestDto) {
    return reply(await this.commands.execute(new RevokeApiKeyCommand(body.key)), 'API key revoked');
  }
}
