import { Command } from '@nestjs/cqrs';
import type { Mode } from '../../../../shared/auth/request-context';

export interface IssuedKey {
  id: string;
  organization_id: string;
  mode: Mode;
  read_only: boolean;
  prefix: string;
  key: string;
  /** The key's label (empty when none was given). */
  name: string;
  created_at: string;
}

export class CreateApiKeyCommand extends Command<IssuedKey> {
  constructor(
    readonly organizationId: string,
    readonly mode: Mode,
    readonly readOnly: boolean,
    /** A label for people (at most 100 characters); empty by default. */
    readonly name: string = '',
  ) {
    super();
  }
}
