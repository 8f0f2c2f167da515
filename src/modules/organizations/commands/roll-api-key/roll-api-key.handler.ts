import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DbNotifications } from '../../../../shared/db/notifications';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { formatTimestamp } from '../../../../shared/time/time';
import { checkGraceSeconds, keyAccepted } from '../../domain/api-key';
import { API_KEYS_CHANGED, ApiKeyCache } from '../../persistence/api-key-cache';
import { OrganizationsRepository } from '../../persistence/organizations.repository';
import { issueKey } from '../create-api-key/create-api-key.handler';
import { RollApiKeyCommand, RolledKey } from './roll-api-key.command';

@CommandHandler(RollApiKeyCommand)
export class RollApiKeyHandler implements ICommandHandler<RollApiKeyCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(DbNotifications) private readonly notifications: DbNotifications,
    @Inject(ApiKeyCache) private readonly cache: ApiKeyCache,
  ) {}

  async execute({ organizationId, mode, keyId, graceSeconds }: RollApiKeyCommand): Promise<RolledKey> {
    const grace = checkGraceSeconds(graceSeconds);
    // Like a revoke: every process drops its cached keys when this commits, before the answer.
    const rolled = await this.notifications.broadcast(API_KEYS_CHANGED, (payload) =>
      this.tx.run(async (m) => {
        const now = this.clock.now();
        const old = await this.repo.findKeyForUpdate(m, organizationId, keyId);
        if (!old || old.mode !== mode) throw new NotFoundError('API key', 'api_key_not_found');
        if (old.revokedAt || old.rolledTo || !keyAccepted(old.expiresAt, now)) {
          throw new ValidationFailedError({ status: old.revokedAt ? 'the key is revoked' : 'the key was rolled already' }, undefined, 'api_key_not_rollable');
        }
        const issued = await issueKey(m, this.repo, organizationId, old.mode, old.readOnly, now, old.name);
        const expiresAt = new Date(now.getTime() + grace * 1000);
        await this.repo.markRolled(m, old.id, expiresAt, issued.id);
        await this.notifications.notify(m, API_KEYS_CHANGED, payload);
        return { issued, previous: { id: old.id, prefix: old.prefix, expires_at: formatTimestamp(expiresAt) } };
      }),
    );
    this.cache.clear();
    return rolled;
  }
}
