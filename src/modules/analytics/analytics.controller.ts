import { ReadOnlyRoute } from '../../shared/db/write-position.interceptor';
import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, RequiredCaller } from '../../shared/auth/auth.decorators';
import type { CallerContext } from '../../shared/auth/request-context';
import { scopeOf } from '../../shared/auth/request-context';
import { ApiEnvelope, ApiErrors } from '../../shared/http/api-docs';
import { EnvelopeReply, reply } from '../../shared/http/envelope';
import type { DashboardView } from './domain/dashboard';
import type { Period } from './domain/period';
import { DashboardRequestDto } from './dto/dashboard.request.dto';
import { DASHBOARD_EXAMPLE, DashboardDto } from './dto/dashboard.response.dto';
import { GetDashboardQuery } from './queries/get-dashboard/get-dashboard.query';

const DESCRIPTION = [
  "Figures of the caller's organization and mode for one period (decisions §12; definitions in docs/analytics.md).",
  'Windows (UTC): last_day = the current hour and the 23 before it; last_N_days = the current day and the N-1 before it; prev_X = the window of the same length just before X. from is inclusive, to exclusive.',
  'A payment belongs to the window holding its happened_at (when the provider saw it; its USD value is taken then); an invoice to the window holding its created_at.',
  'Volumes are sums of price_usd of COMPLETED payments. invoices.paid_count = invoices of the window that are COMPLETED now; paid_volume_usd = their price_usd sum;',
  'average_price_usd = mean price_usd of the invoices of the window; conversion_rate = paid_count / count (0 when none).',
  'customers: distinct lower-cased customer_email of the invoices of the window; new = first invoice ever in the window; returning = unique - new;',
  'top = up to 5 customers by the price_usd sum of their COMPLETED invoices of the window.',
  'series: one point per day (per hour for last_day / prev_last_day), zero-filled. Money: 30 fractional digits; share and conversion_rate: decimals between 0 and 1.',
  'Served from rollups kept by database triggers in the same transaction as each payment or invoice change (raw payments and invoices are never scanned).',
].join(' ');

@ApiTags('Analytics')
@Controller('analytics')
export class AnalyticsController {
  constructor(@Inject(QueryBus) private readonly queries: QueryBus) {}

  @Post('dashboard')
  @ReadOnlyRoute()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({ summary: 'Dashboard metrics for a period', description: DESCRIPTION })
  @ApiBody({
    type: DashboardRequestDto,
    examples: { last_30_days: { value: { period: 'last_30_days' } }, prev_last_day: { value: { period: 'prev_last_day' } } },
  })
  @ApiEnvelope({ type: DashboardDto, example: DASHBOARD_EXAMPLE, message: 'Dashboard' })
  @ApiErrors(400, 401, 403)
  async dashboard(@RequiredCaller() caller: CallerContext, @Body() body: DashboardRequestDto): Promise<EnvelopeReply<DashboardView>> {
    return reply(await this.queries.execute(new GetDashboardQuery(scopeOf(caller), body.period as Period)), 'Dashboard');
  }
}
