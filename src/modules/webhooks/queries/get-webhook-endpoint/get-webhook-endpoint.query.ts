import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { EndpointView } from '../../domain/endpoint-view';

export class GetWebhookEndpointQuery extends Query<EndpointView> {
  constructor(
    readonly scope: Scope,
    readonly endpointId: string,
  ) {
    super();
  }
}
