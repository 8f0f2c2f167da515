import { Query } from '@nestjs/cqrs';

/** One organization as the operator lists it: no key, not even a prefix (key:list --org shows those). */
export interface OrganizationListEntry {
  organization_id: string;
  name: string;
  created_at: string;
  active_test_keys: number;
  active_live_keys: number;
}

/** Every organization, oldest first (operator only: the CLI's org:list). */
export class ListOrganizationsQuery extends Query<OrganizationListEntry[]> {}
