import { Body, Controller, Get, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { Authenticated } from '../../shared/auth/auth.decorators';
import { NotFoundError } from '../../shared/errors/domain-error';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { EnvelopeReply, reply } from '../../shared/http/envelope';
import { Clock, OffsetClock } from '../../shared/time/clock';
import { formatTimestamp } from '../../shared/time/time';

/** Longest single move: one year. */
const MAX_ADVANCE_SECONDS = 366 * 24 * 3600;

export class AdvanceClockRequestDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_ADVANCE_SECONDS, example: 900, description: 'Seconds to move this instance\'s clock forward' })
  @Max(MAX_ADVANCE_SECONDS, { message: `$property must be at most ${MAX_ADVANCE_SECONDS}` })
  @Min(1, { message: '$property must be at least 1' })
  @IsInt({ message: '$property must be a whole number of seconds' })
  advance_seconds: number;
}

export class ClockStateDto {
  @ApiProperty({ example: '2026-11-21 10:15:00', description: 'The service\'s now (UTC, YYYY-MM-DD HH:MM:SS)' }) now: string;
  @ApiProperty({ example: '2026-11-21T10:15:00.123Z', description: 'The same instant with milliseconds (ISO 8601)' }) now_iso: string;
  @ApiProperty({ type: 'integer', example: 900, description: 'How far ahead of real time this instance runs, in whole seconds' }) offset_seconds: number;
}

const EXAMPLE = { now: '2026-11-21 10:15:00', now_iso: '2026-11-21T10:15:00.123Z', offset_seconds: 900 };

/**
 * Tests only: the service's clock, moved forward so expiry, monitoring windows and the sweeper can
 * be exercised without sleeping. Present only when the service runs with CLOCK_CONTROL=true (which
 * start-up refuses with NODE_ENV=production); otherwise 404. Test keys only (live keys: 403). The
 * offset lives in this process: with several instances, move each one.
 */
@ApiTags('Test helpers')
@Controller('test_helpers/clock')
export class TestClockController {
  constructor(@Inject(Clock) private readonly clock: Clock) {}

  private controlled(): OffsetClock {
    if (!(this.clock instanceof OffsetClock)) throw new NotFoundError('route', 'not_found');
    return this.clock;
  }

  private state(clock: OffsetClock): ClockStateDto {
    const now = clock.now();
    return { now: formatTimestamp(now), now_iso: now.toISOString(), offset_seconds: Math.floor(clock.offsetMs / 1000) };
  }

  @Get()
  @HttpCode(200)
  @Authenticated({ testOnly: true })
  @ApiOperation({ summary: 'Read the service\'s clock (test keys only; only with CLOCK_CONTROL=true, else 404)' })
  @ApiEnvelope({ type: ClockStateDto, example: EXAMPLE, message: 'Clock' })
  @ApiErrors(401, 403, 404)
  read(): EnvelopeReply<ClockStateDto> {
    return reply(this.state(this.controlled()), 'Clock');
  }

  @Post()
  @HttpCode(200)
  @Authenticated({ write: true, testOnly: true })
  @ApiOperation({
    summary: 'Move the service\'s clock forward (test keys only; only with CLOCK_CONTROL=true, else 404)',
    description: 'Moves this instance\'s clock forward by advance_seconds; it never goes back. Expiry, the monitoring window and the sweeper follow the moved clock.',
  })
  @ApiEnvelope({ type: ClockStateDto, example: EXAMPLE, message: 'Clock moved' })
  @ApiErrors(400, 401, 403, 404)
  advance(@Body() body: AdvanceClockRequestDto): EnvelopeReply<ClockStateDto> {
    const clock = this.controlled();
    clock.advance(body.advance_seconds * 1000);
    return reply(this.state(clock), 'Clock moved');
  }
}
