import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { DashboardView } from '../../domain/dashboard';
import type { Period } from '../../domain/period';

/** The dashboard of one organization and mode for one period, ending at the service clock's now. */
export class GetDashboardQuery extends Query<DashboardView> {
  constructor(
    readonly scope: Scope,
    readonly period: Period,
  ) {
    super();
  }
}
