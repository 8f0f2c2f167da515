import { Query } from '@nestjs/cqrs';

/** What other modules may show of an organization. */
export interface OrganizationProfile {
  id: string;
  name: string;
  imageUrl: string | null;
  createdAt: Date;
}

/**
 * One organization's profile by id (the caller's own organization: a tenant scope's
 * organizationId, or an invoice's owner for a payer); null when there is none.
 */
export class GetOrganizationProfileQuery extends Query<OrganizationProfile | null> {
  constructor(readonly organizationId: string) {
    super();
  }
}
