import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ValidationFailedError } from '../../../../shared/errors/domain-error';
import { newId } from '../../../../shared/ids/ids';
import { Clock } from '../../../../shared/time/clock';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { OrganizationsRepository } from '../../persistence/organizations.repository';
import { issueKey } from '../create-api-key/create-api-key.handler';
import { CreateOrganizationCommand, CreatedOrganization } from './create-organization.command';

export const MAX_ORGANIZATION_NAME = 200;

@CommandHandler(CreateOrganizationCommand)
export class CreateOrganizationHandler implements ICommandHandler<CreateOrganizationCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(OrganizationsRepository) private readonly repo: OrganizationsRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async execute({ name }: CreateOrganizationCommand): Promise<CreatedOrganization> {
    const trimmed = (name ?? '').trim();
    if (!trimmed || trimmed.length > MAX_ORGANIZATION_NAME) {
      throw new ValidationFailedError({ name: `must be 1 to ${MAX_ORGANIZATION_NAME} characters` });
    }
    const now = this.clock.now();
    return this.tx.run(async (m) => {
      const id = newId('org');
      await this.repo.insertOrganization(m, { id, name: trimmed, imageUrl: null, createdAt: now });
      const test = await issueKey(m, this.repo, id, 'test', false, now);
      const live = await issueKey(m, this.repo, id, 'live', false, now);
      return { organization_id: id, name: trimmed, test_key: test.key, live_key: live.key };
    });
  }
}
