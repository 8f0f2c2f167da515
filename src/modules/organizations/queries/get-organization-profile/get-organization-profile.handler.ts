import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { OrganizationsRepository } from '../../persistence/organizations.repository';
import { GetOrganizationProfileQuery, OrganizationProfile } from './get-organization-profile.query';

@QueryHandler(GetOrganizationProfileQuery)
export class GetOrganizationProfileHandler implements IQueryHandler<GetOrganizationProfileQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
  ) {}

  async execute({ organizationId }: GetOrganizationProfileQuery): Promise<OrganizationProfile | null> {
    const org = await this.repo.profile(this.tx.readsFor(null), organizationId);
    return org ? { id: org.id, name: org.name, imageUrl: org.image_url, createdAt: org.created_at } : null;
  }
}
