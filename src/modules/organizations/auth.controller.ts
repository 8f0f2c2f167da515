import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import type { CallerContext } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { formatTimestamp } from '../../shared/time/time';
import { DebugTokenDto } from './dto/organization.dto';

@ApiTags('Auth')
@Controller('auth')
export class AuthController {
  @Get('debug_token')
  @Authenticated()
  @ApiOperation({ summary: 'Echo what the presented API key resolves to' })
  @ApiEnvelope({
    type: DebugTokenDto,
    example: {
      organization_id: 'org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f',
      organization_name: 'Acme',
      mode: 'test',
      key_prefix: 'sk_test_Ab12Cd',
      read_only: false,
      created_at: '2026-11-21 10:00:00',
    },
  })
  @ApiErrors(401)
  debugToken(@RequiredCaller() caller: CallerContext): DebugTokenDto {
    return {
      organization_id: caller.organizationId,
      organization_name: caller.organizationName,
      mode: caller.mode,
      key_prefix: caller.keyPrefix,
      read_only: caller.readOnly,
      created_at: formatTimestamp(caller.keyCreatedAt),
    };
  }
}
