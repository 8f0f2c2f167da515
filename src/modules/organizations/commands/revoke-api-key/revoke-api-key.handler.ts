import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { DISPLAY_PREFIX_LENGTH, hashApiKey, modeOfKey } from '../../domain/api-key';
import { DbNotifications } from '../../../../shared/db/notifications';
import { API_KEYS_CHANGED, ApiKeyCache } from '../../persistence/api-key-cache';
import { OrganizationsRepository } from '../../persistence/organizations.repository';
import { RevokeApiKeyCommand, RevokedKeys } from './revoke-api-key.command';

@CommandHandler(RevokeApiKeyCommand)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKeyCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(DbNotifications) private readonly notifications: DbNotifications,
    @Inject(ApiKeyCache) private readonly cache: ApiKeyCache,
  ) {}

  async execute({ keyOrPrefix, organizationId }: RevokeApiKeyCommand): Promise<RevokedKeys> {
    const text = (keyOrPrefix ?? '').trim();
    const isFullKey = modeOfKey(text) !== null;
    if (!isFullKey && text.length !== DISPLAY_PREFIX_LENGTH) {
      throw new ValidationFailedError({ key: `must be a full key or its ${DISPLAY_PREFIX_LENGTH}-character display prefix` });
    }
    if (!isFullKey && !organizationId) {
      throw new ValidationFailedError(
        {
          organization_id: 'is required to revoke by display prefix (prefixes are not unique across organizations); give the organization, or the full key',
        },
        undefined,
        'organization_required',
      );
    }
    const match = { ...(isFullKey ? { keyHash: hashApiKey(text) } : { prefix: text }), ...(organizationId && { organizationId }) };
    // Every process drops its cached keys when this commits; the answer waits until the news is out.
    const revoked = await this.notifications.broadcast(API_KEYS_CHANGED, (payload) =>
      this.tx.run(async (m) => {
        const keys = await this.repo.findActiveKeysForUpdate(m, match);
        if (keys.length > 1) {
          throw new ValidationFailedError(
            { key: `the prefix matches ${keys.length} active keys of the organization; give the full key` },
            undefined,
            'ambiguous_key_prefix',
          );
        }
        await this.repo.revokeKeys(m, keys, this.clock.now());
        if (keys.length) await this.notifications.notify(m, API_KEYS_CHANGED, payload);
        return keys;
      }),
    );
    this.cache.clear();
    if (!revoked.length) throw new NotFoundError('active API key', 'api_key_not_found');
    return { revoked: revoked.map((k) => ({ id: k.id, prefix: k.prefix, organization_id: k.organizationId })) };
  }
}
