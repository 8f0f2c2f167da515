import { Command } from '@nestjs/cqrs';

export interface CreatedOrganization {
  organization_id: string;
  name: string;
  test_key: string;
  live_key: string;
}

/** Creates an organization with one test key and one live key (shown once). */
export class CreateOrganizationCommand extends Command<CreatedOrganization> {
  constructor(readonly name: string) {
    super();
  }
}
