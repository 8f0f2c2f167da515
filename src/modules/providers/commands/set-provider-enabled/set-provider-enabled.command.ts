import { Command } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';

export interface ProviderSettingChanged {
  organization_id: string;
  provider_id: string;
  enabled: boolean;
  modes: Mode[];
}

/** Operator command: turns one catalog provider on or off for an organization, in the given modes. */
export class SetProviderEnabledCommand extends Command<ProviderSettingChanged> {
  constructor(
    readonly organizationId: string,
    readonly providerId: string,
    readonly enabled: boolean,
    readonly modes: readonly Mode[],
  ) {
    super();
  }
}
