import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { CallerContext } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { hashApiKey } from '../../domain/api-key';
import { OrganizationsRepository } from '../../persistence/organizations.repository';
import { ResolveApiKeyQuery } from './resolve-api-key.query';

@QueryHandler(ResolveApiKeyQuery)
export class ResolveApiKeyHandler implements IQueryHandler<ResolveApiKeyQuery> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
  ) {}

  execute({ key }: ResolveApiKeyQuery): Promise<CallerContext | null> {
    return this.repo.resolveKey(this.tx.manager, hashApiKey(key));
  }
}
