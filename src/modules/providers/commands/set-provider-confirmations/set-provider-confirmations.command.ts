import { Command } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';

export interface ProviderConfirmationsChanged {
  organization_id: string;
  provider_id: string;
  /** The count now in force (the override, or the catalog's when it was cleared). */
  required_confirmations: number;
  /** The catalog's value, for comparison. */
  catalog_required_confirmations: number;
  modes: Mode[];
}

/**
 * Operator command: how many confirmations payments through one crypto provider need before they
 * count, for an organization in the given modes. `count` null goes back to the catalog's value.
 * Applies to payments reported from then on; a payment keeps the requirement it was first seen with.
 */
export class SetProviderConfirmationsCommand extends Command<ProviderConfirmationsChanged> {
  constructor(
    readonly organizationId: string,
    readonly providerId: string,
    readonly count: number | null,
    readonly modes: readonly Mode[],
  ) {
    super();
  }
}
