import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { DISPLAY_PREFIX_LENGTH, hashApiKey, modeOfKey } from '../../domain/api-key';
import { OrganizationsRepository } from '../../persistence/organizations.repository';
import { RevokeApiKeyCommand, RevokedKeys } from './revoke-api-key.command';

@CommandHandler(RevokeApiKeyCommand)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKeyCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ keyOrPrefix }: RevokeApiKeyCommand): Promise<RevokedKeys> {
    const text = (keyOrPrefix ?? '').trim();
    const isFullKey = modeOfKey(text) !== null;
    if (!isFullKey && text.length !== DISPLAY_PREFIX_LENGTH) {
      throw new ValidationFailedError({ key: `must be a full key or its ${DISPLAY_PREFIX_LENGTH}-character display prefix` });
    }
    const revoked = await this.tx.run((m) =>
      this.repo.revoke(m, isFullKey ? hashApiKey(text) : null, isFullKey ? null : text, this.clock.now()));
    if (!revoked.length) throw new NotFoundError('active API key', 'api_key_not_found');
    return { revoked: revoked.map((k) => ({ id: k.id, prefix: k.prefix, organization_id: k.organizationId })) };
  }
}
