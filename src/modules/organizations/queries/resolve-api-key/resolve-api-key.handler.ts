import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { CallerContext } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { hashApiKey } from '../../domain/api-key';
import { ApiKeyCache } from '../../persistence/api-key-cache';
import { OrganizationsRepository } from '../../persistence/organizations.repository';
import { ResolveApiKeyQuery } from './resolve-api-key.query';

@QueryHandler(ResolveApiKeyQuery)
export class ResolveApiKeyHandler implements IQueryHandler<ResolveApiKeyQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
    @Inject(ApiKeyCache) private readonly cache: ApiKeyCache,
  ) {}

  async execute({ key }: ResolveApiKeyQuery): Promise<CallerContext | null> {
    const hash = hashApiKey(key);
    // Only active keys are kept: an unknown key is looked up every time, so a new key works at once.
    const caller = await this.cache.getOrLoad(hash, async () => (await this.repo.resolveKey(this.tx.manager, hash)) ?? undefined);
    return caller ?? null;
  }
}
