import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import type { CallerContext } from '../../shared/auth/request-context';
import { ForbiddenError, ValidationFailedError } from '../../shared/errors/domain-error';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { reply } from '../../shared/http/envelope';
import { ConsoleRepository } from './persistence/console.repository';

export class AuditEntryDto {
  @ApiProperty({ example: 'audit_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' }) id!: string;
  @ApiProperty({ enum: ['member', 'key'], example: 'member', description: 'Who acted: a console member or an API key' }) actor_type!: string;
  @ApiProperty({ example: 'member_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01', description: 'The member id, or the key id' }) actor_id!: string;
  @ApiProperty({ example: 'api_key.create', description: 'What was done' }) action!: string;
  @ApiProperty({ type: String, nullable: true, example: 'key_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e02', description: 'The object acted on' }) target!:
    string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['test', 'live'],
    example: 'test',
    description: 'The mode acted in; null for organization-wide actions (members, sign-in)',
  })
  mode!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '203.0.113.7', description: 'The client address it came from' }) ip!: string | null;
  @ApiProperty({ example: '2026-11-28 12:00:00' }) created_at!: string;
}

export class AuditLogPageDto {
  @ApiProperty({ type: [AuditEntryDto] }) items!: AuditEntryDto[];
  @ApiProperty({ example: false }) has_more!: boolean;
  @ApiPropertyOptional({ type: String, nullable: true, example: null, description: 'Pass as starting_after for the next page' }) next_starting_after!:
    string | null;
}

function utc(d: Date): string {
  return d.toISOString().replace('T', ' ').slice(0, 19);
}

/** The audit log over the API (decisions §25): for full keys only, since it shows who did what. */
@ApiTags('Audit log')
@Controller('audit_log')
export class AuditLogController {
  constructor(@Inject(ConsoleRepository) private readonly repo: ConsoleRepository) {}

  @Get()
  @Authenticated()
  @ApiOperation({
    summary: "The organization's audit log, newest first",
    description:
      'Who (a console member or an API key) did what, when and from where: console sign-ins, members and roles, API keys created or revoked, ' +
      "and the changes members and keys make that decide where money or data goes or undo something: invoices voided, marked paid or re-priced, refunds, subscriptions cancelled, products, wallets, webhook endpoints (a key's entries have actor_type key and the key's id; creating invoices and payments is not audited). " +
      'A live key reads both modes (each entry names its mode, or null for organization-wide actions); a test key reads test-mode entries only. A read-only key gets 403.',
  })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } })
  @ApiQuery({ name: 'starting_after', required: false, description: 'The last id of the previous page', example: 'audit_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' })
  @ApiEnvelope({ type: AuditLogPageDto, message: 'Audit log', example: { items: [], has_more: false, next_starting_after: null } })
  @ApiErrors(400, 401, 403)
  async list(@RequiredCaller() caller: CallerContext, @Query('limit') limitText: unknown, @Query('starting_after') after: unknown) {
    if (caller.readOnly) throw new ForbiddenError('The audit log needs a full (not read-only) key', 'read_only_key');
    let limit = 50;
    if (limitText !== undefined) {
      if (typeof limitText !== 'string' || !/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100) {
        throw new ValidationFailedError({ limit: 'must be a whole number from 1 to 100' });
      }
      limit = Number(limitText);
    }
    if (after !== undefined && (typeof after !== 'string' || !/^audit_[0-9a-f-]{36}$/.test(after))) {
      throw new ValidationFailedError({ starting_after: 'must be an audit entry id (audit_...)' });
    }
    // A test key is a test-mode credential (developers may make full ones, decisions §25): its mode's entries only.
    const rows = await this.repo.auditLog(caller.organizationId, limit + 1, after, caller.mode === 'test' ? 'test' : undefined);
    const items = rows.slice(0, limit).map((r) => ({
      id: r.id,
      actor_type: r.actor_type,
      actor_id: r.actor_id,
      action: r.action,
      target: r.target,
      mode: r.mode,
      ip: r.ip,
      created_at: utc(r.created_at),
    }));
    const hasMore = rows.length > limit;
    return reply({ items, has_more: hasMore, next_starting_after: hasMore ? items.at(-1)!.id : null }, 'Audit log');
  }
}
