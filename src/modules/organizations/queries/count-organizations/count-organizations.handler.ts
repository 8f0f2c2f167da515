import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { OrganizationsRepository } from '../../persistence/organizations.repository';
import { CountOrganizationsQuery } from './count-organizations.query';

@QueryHandler(CountOrganizationsQuery)
export class CountOrganizationsHandler implements IQueryHandler<CountOrganizationsQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
  ) {}

  execute(): Promise<number> {
    return this.repo.countOrganizations(this.tx.manager);
  }
}
