import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { SecretBoxError } from '../../../../shared/crypto/secret-box';
import { NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { EndpointWithSecret, renderEndpoint } from '../../domain/endpoint-view';
import { generateSigningSecret } from '../../domain/secret';
import { WebhookEndpointsRepository } from '../../persistence/webhook-endpoints.repository';
import { RotateWebhookSecretCommand } from './rotate-webhook-secret.command';

/** A current secret this instance cannot open (sealed with a SECRETS_KEY it lacks) cannot be kept through a grace period. */
function unreadable(error: unknown): never {
  if (!(error instanceof SecretBoxError)) throw error;
  throw new ValidationFailedError({
    grace_period_seconds:
      'the current signing secret cannot be opened on this service (sealed with a SECRETS_KEY it lacks), so it cannot be kept; rotate with 0',
  });
}

@CommandHandler(RotateWebhookSecretCommand)
export class RotateWebhookSecretHandler implements ICommandHandler<RotateWebhookSecretCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookEndpointsRepository) private readonly endpoints: WebhookEndpointsRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ scope, endpointId, graceSeconds }: RotateWebhookSecretCommand): Promise<EndpointWithSecret> {
    const now = this.clock.now();
    return this.tx.run(async (m) => {
      // The current secret is opened only to be kept through a grace period.
      const kept = graceSeconds > 0 ? await this.endpoints.findWithSecret(m, scope, endpointId, true).catch(unreadable) : null;
      const current = kept ?? (await this.endpoints.find(m, scope, endpointId, true));
      if (!current) throw new NotFoundError('webhook endpoint');
      const secret = generateSigningSecret();
      const saved = await this.endpoints.update(m, scope, endpointId, {
        secret,
        previous_secret: kept ? kept.secret : null,
        previous_secret_expires_at: graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null,
        updated_at: now,
      });
      return { ...renderEndpoint(saved), secret };
    });
  }
}
