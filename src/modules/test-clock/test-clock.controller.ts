import { Body, Controller, Get, HttpCode, Inject, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { Authenticated } from '../../shared/auth/auth.decorators';
import { ForbiddenError } from '../../shared/errors/domain-error';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { EnvelopeReply, reply } from '../../shared/http/envelope';
import { Clock, ClockScope, ControlledClock } from '../../shared/time/clock';
import { RequiredCaller } from '../../shared/auth/auth.decorators';
import type { CallerContext } from '../../shared/auth/request-context';
import { scopeOf } from '../../shared/auth/request-context';
import { formatTimestamp } from '../../shared/time/time';
import { AdvanceTestClockCommand } from './commands/advance-test-clock/advance-test-clock.command';

/** Longest single move: one year. */
const MAX_ADVANCE_SECONDS = 366 * 24 * 3600;

export class AdvanceClockRequestDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_ADVANCE_SECONDS, example: 900, description: "Seconds to move the caller's test clock forward" })
  @Max(MAX_ADVANCE_SECONDS, { message: `$property must be at most ${MAX_ADVANCE_SECONDS}` })
  @Min(1, { message: '$property must be at least 1' })
  @IsInt({ message: '$property must be a whole number of seconds' })
  advance_seconds: number;
}

export class ClockStateDto {
  @ApiProperty({ example: '2026-11-21 10:15:00', description: "Now for the caller's organization in test mode (UTC, YYYY-MM-DD HH:MM:SS)" }) now: string;
  @ApiProperty({ example: '2026-11-21T10:15:00.123Z', description: 'The same instant with milliseconds (ISO 8601)' }) now_iso: string;
  @ApiProperty({ type: 'integer', example: 900, description: "How far ahead of real time this organization's test mode runs, in whole seconds" })
  offset_seconds: number;
}

const EXAMPLE = { now: '2026-11-21 10:15:00', now_iso: '2026-11-21T10:15:00.123Z', offset_seconds: 900 };

/**
 * Tests only: the test clock of the caller's organization, moved forward so expiry, monitoring
 * windows and the sweeper can be exercised without sleeping. Works when the service runs with
 * CLOCK_CONTROL on (the default outside production; start-up refuses it with NODE_ENV=production);
 * otherwise 403 clock_control_disabled. Test keys only
 * (live keys: 403). It moves the caller's organization in test mode only: live data, other
 * organizations, event timestamps and webhook signatures keep real time. The offset is stored in the
 * database, so every instance sees it and it survives restarts.
 */
@ApiTags('Test helpers')
@Controller('test_helpers/clock')
export class TestClockController {
  constructor(
    @Inject(Clock) private readonly clock: Clock,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  private controlled(): ControlledClock {
    if (!(this.clock instanceof ControlledClock)) {
      throw new ForbiddenError(
        'The test clock is off on this service: CLOCK_CONTROL is false (set CLOCK_CONTROL=true to move test clocks; never with NODE_ENV=production)',
        'clock_control_disabled',
      );
    }
    return this.clock;
  }

  private async state(clock: ControlledClock, scope: ClockScope): Promise<ClockStateDto> {
    const offset = await clock.offsetMs(scope);
    const now = new Date(Date.now() + offset);
    return { now: formatTimestamp(now), now_iso: now.toISOString(), offset_seconds: Math.floor(offset / 1000) };
  }

  @Get()
  @HttpCode(200)
  @Authenticated({ testOnly: true })
  @ApiOperation({ summary: "Read the test clock of the caller's organization (test keys only; with CLOCK_CONTROL on, else 403 clock_control_disabled)" })
  @ApiEnvelope({ type: ClockStateDto, example: EXAMPLE, message: 'Clock' })
  @ApiErrors(401, 403, 404)
  async read(@RequiredCaller() caller: CallerContext): Promise<EnvelopeReply<ClockStateDto>> {
    const clock = this.controlled();
    return reply(await this.state(clock, scopeOf(caller)), 'Clock');
  }

  @Post()
  @HttpCode(200)
  @Authenticated({ write: true, testOnly: true })
  @ApiOperation({
    summary: "Move the test clock of the caller's organization forward (test keys only; with CLOCK_CONTROL on, else 403 clock_control_disabled)",
    description:
      "Moves the time of the caller's organization in test mode forward by advance_seconds; it never goes back, and runs at most 100 years ahead of real time in all (400 at advance_seconds past that). " +
      'Invoice timing (created_at, expires_at, expiry, the monitoring window, the sweeper), payments against those invoices and the dashboard follow it. ' +
      'Live mode, other organizations, event timestamps and webhook signatures (webhook-timestamp) always use real time. ' +
      'The offset is stored in the database: every instance sees it, and it survives restarts.',
  })
  @ApiBody({
    type: AdvanceClockRequestDto,
    examples: { fifteen_minutes: { value: { advance_seconds: 900 } }, one_month: { value: { advance_seconds: 2678400 } } },
  })
  @ApiEnvelope({ type: ClockStateDto, example: EXAMPLE, message: 'Clock moved' })
  @ApiErrors(400, 401, 403, 404)
  async advance(@RequiredCaller() caller: CallerContext, @Body() body: AdvanceClockRequestDto): Promise<EnvelopeReply<ClockStateDto>> {
    const clock = this.controlled();
    const scope = scopeOf(caller);
    await this.commands.execute(new AdvanceTestClockCommand(scope, body.advance_seconds * 1000));
    return reply(await this.state(clock, scope), 'Clock moved');
  }
}
