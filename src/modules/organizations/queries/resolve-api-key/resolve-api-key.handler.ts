import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { CallerContext } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { Clock } from '../../../../shared/time/clock';
import { hashApiKey, keyAccepted } from '../../domain/api-key';
import { ApiKeyCache } from '../../persistence/api-key-cache';
import { OrganizationsRepository } from '../../persistence/organizations.repository';
import { ApiKeyUsage } from '../../usage/api-key-usage.service';
import { ResolveApiKeyQuery } from './resolve-api-key.query';

@QueryHandler(ResolveApiKeyQuery)
export class ResolveApiKeyHandler implements IQueryHandler<ResolveApiKeyQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
    @Inject(ApiKeyCache) private readonly cache: ApiKeyCache,
    @Inject(ApiKeyUsage) private readonly usage: ApiKeyUsage,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ key }: ResolveApiKeyQuery): Promise<CallerContext | null> {
    const hash = hashApiKey(key);
    // Only active keys are kept: an unknown key is looked up every time, so a new key works at once.
    const resolved = await this.cache.getOrLoad(hash, async () => (await this.repo.resolveKey(this.tx.manager, hash)) ?? undefined);
    if (!resolved) return null;
    // A rolled key is refused once its grace period has ended (the cached entry carries the end).
    const now = this.clock.now();
    if (!keyAccepted(resolved.expiresAt, now)) return null;
    this.usage.note(resolved.caller.keyId, now);
    return resolved.caller;
  }
}
