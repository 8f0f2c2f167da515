import { Command } from '@nestjs/cqrs';
import type { IssuedLink } from '../console-auth.service';

export type { IssuedLink } from '../console-auth.service';

/**
 * A one-time link to set a console password: `invite` adds the member with `role` (or renews the
 * invitation of one who has not set a password yet; 24 h), `reset` is for an existing member.
 */
export class IssueMemberLinkCommand extends Command<IssuedLink> {
  constructor(
    readonly organizationId: string,
    readonly email: string,
    readonly kind: 'invite' | 'reset',
    readonly role?: string,
  ) {
    super();
  }
}
