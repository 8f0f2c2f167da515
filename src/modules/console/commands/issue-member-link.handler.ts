import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ConsoleAuth, IssuedLink } from '../console-auth.service';
import { IssueMemberLinkCommand } from './issue-member-link.command';

@CommandHandler(IssueMemberLinkCommand)
export class IssueMemberLinkHandler implements ICommandHandler<IssueMemberLinkCommand, IssuedLink> {
  constructor(@Inject(ConsoleAuth) private readonly auth: ConsoleAuth) {}

  execute(c: IssueMemberLinkCommand): Promise<IssuedLink> {
    return this.auth.issueLink(c.organizationId, c.email, c.kind, c.role);
  }
}
