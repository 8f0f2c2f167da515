import { Query } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { EndpointView } from '../../domain/endpoint-view';

export interface EndpointList {
  items: EndpointView[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

export class ListWebhookEndpointsQuery extends Query<EndpointList> {
  constructor(
    readonly scope: Scope,
    readonly limit = 20,
    readonly offset = 0,
  ) {
    super();
  }
}
