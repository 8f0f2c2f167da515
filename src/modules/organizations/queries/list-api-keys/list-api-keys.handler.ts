import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { formatTimestamp } from '../../../../shared/time/time';
import { OrganizationsRepository } from '../../persistence/organizations.repository';
import { ApiKeyView, ListApiKeysQuery } from './list-api-keys.query';

@QueryHandler(ListApiKeysQuery)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeysQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
  ) {}

  async execute({ organizationId }: ListApiKeysQuery): Promise<ApiKeyView[]> {
    // The keys of every mode: a replica serves only a keyless read (the admin's, the console's), once
    // it has replayed the primary's position at the time of the read (readSnapshot with no scope).
    const { keys, usage } = await this.tx.readSnapshot(
      null,
      async (m) => {
        if (!(await this.repo.findOrganization(m, organizationId))) throw new NotFoundError('organization');
        return { keys: await this.repo.listKeys(m, organizationId), usage: await this.repo.keyUsage(m, organizationId) };
      },
      false,
    );
    return keys.map((k) => ({
      id: k.id,
      prefix: k.prefix,
      mode: k.mode,
      read_only: k.readOnly,
      name: k.name,
      created_at: formatTimestamp(k.createdAt),
      revoked_at: formatTimestamp(k.revokedAt),
      expires_at: formatTimestamp(k.expiresAt),
      rolled_to: k.rolledTo,
      last_used_at: formatTimestamp(usage.get(k.id) ?? null),
    }));
  }
}
