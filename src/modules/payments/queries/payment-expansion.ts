import type { QueryBus } from '@nestjs/cqrs';
import type { Scope } from '../../../shared/auth/request-context';
import { GetProvidersQuery } from '../../providers';
import type { PaymentView } from '../dto/payment.views';

/** Fills `provider` on payment views of one scope (one provider lookup for the whole page). */
export async function expandProviders(queries: QueryBus, scope: Scope, views: PaymentView[]): Promise<void> {
  if (!views.length) return;
  const ids = [...new Set(views.map((v) => v.provider_id))];
  const providers = await queries.execute(new GetProvidersQuery(scope, ids));
  const byId = new Map(providers.map((p) => [p.catalog.id, p.view]));
  for (const v of views) v.provider = byId.get(v.provider_id) ?? null;
}
