import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { WebhookEndpointsRepository } from '../../persistence/webhook-endpoints.repository';
import { SealStoredSecretsCommand } from './seal-stored-secrets.command';

const BATCH = 200;

@CommandHandler(SealStoredSecretsCommand)
export class SealStoredSecretsHandler implements ICommandHandler<SealStoredSecretsCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(WebhookEndpointsRepository) private readonly endpoints: WebhookEndpointsRepository,
  ) {}

  async execute(): Promise<number> {
    let total = 0;
    for (;;) {
      const sealed = await this.tx.run((m) => this.endpoints.sealStoredSecrets(m, BATCH));
      total += sealed;
      if (sealed < BATCH) return total;
    }
  }
}
