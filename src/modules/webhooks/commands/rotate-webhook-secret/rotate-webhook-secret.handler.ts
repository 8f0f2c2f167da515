import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { NotFoundError } from '../../../../shared/errors/domain-error';
import { Clock } from '../../../../shared/time/clock';
import { EndpointWithSecret, renderEndpoint } from '../../domain/endpoint-view';
import { generateSigningSecret } from '../../domain/secret';
import { WebhookEndpointsRepository } from '../../persistence/webhook-endpoints.repository';
import { RotateWebhookSecretCommand } from './rotate-webhook-secret.command';

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
      const current = await this.endpoints.find(m, scope, endpointId, true);
      if (!current) throw new NotFoundError('webhook endpoint');
      const secret = generateSigningSecret();
      const saved = await this.endpoints.update(m, scope, endpointId, {
        secret,
        previous_secret: graceSeconds > 0 ? current.secret : null,
        previous_secret_expires_at: graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null,
        updated_at: now,
      });
      return { ...renderEndpoint(saved), secret };
    });
  }
}
