import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { formatTimestamp } from '../../../../shared/time/time';
import { OrganizationsRepository } from '../../persistence/organizations.repository';
import { ListOrganizationsQuery, OrganizationListEntry } from './list-organizations.query';

@QueryHandler(ListOrganizationsQuery)
export class ListOrganizationsHandler implements IQueryHandler<ListOrganizationsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
  ) {}

  async execute(): Promise<OrganizationListEntry[]> {
    const rows = await this.repo.listOrganizations(this.tx.manager);
    return rows.map((r) => ({
      organization_id: r.id,
      name: r.name,
      created_at: formatTimestamp(r.createdAt),
      active_test_keys: r.activeTestKeys,
      active_live_keys: r.activeLiveKeys,
    }));
  }
}
