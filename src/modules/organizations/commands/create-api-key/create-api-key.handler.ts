import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EntityManager } from 'typeorm';
import type { Mode } from '../../../../shared/auth/request-context';
import { MODES } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { newId } from '../../../../shared/ids/ids';
import { Clock } from '../../../../shared/time/clock';
import { formatTimestamp } from '../../../../shared/time/time';
import { checkKeyName, displayPrefix, generateApiKey, hashApiKey } from '../../domain/api-key';
import { OrganizationsRepository } from '../../persistence/organizations.repository';
import { CreateApiKeyCommand, IssuedKey } from './create-api-key.command';

export async function issueKey(
  m: EntityManager,
  repo: OrganizationsRepository,
  organizationId: string,
  mode: Mode,
  readOnly: boolean,
  now: Date,
  name = '',
): Promise<IssuedKey> {
  const key = generateApiKey(mode);
  const id = newId('key');
  const prefix = displayPrefix(key);
  await repo.insertKey(m, {
    id,
    organizationId,
    mode,
    keyHash: hashApiKey(key),
    prefix,
    readOnly,
    createdAt: now,
    revokedAt: null,
    name,
    expiresAt: null,
    rolledTo: null,
  });
  return { id, organization_id: organizationId, mode, read_only: readOnly, prefix, key, name, created_at: formatTimestamp(now) };
}

@CommandHandler(CreateApiKeyCommand)
export class CreateApiKeyHandler implements ICommandHandler<CreateApiKeyCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ organizationId, mode, readOnly, name }: CreateApiKeyCommand): Promise<IssuedKey> {
    if (!MODES.includes(mode)) throw new ValidationFailedError({ mode: 'must be test or live' });
    const label = checkKeyName(name);
    return this.tx.run(async (m) => {
      if (!(await this.repo.findOrganization(m, organizationId))) throw new NotFoundError('organization');
      return issueKey(m, this.repo, organizationId, mode, readOnly, this.clock.now(), label);
    });
  }
}
