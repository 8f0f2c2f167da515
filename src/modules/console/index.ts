// The console module's public surface: other modules and the composition root import only this file.
export { ConsoleModule } from './console.module';
export { IssueMemberLinkCommand, type IssuedLink } from './commands/issue-member-link.command';
export { may, ROLES, type Role, type Action } from './domain/roles';
// The rule a member's email follows (the CLI checks an owner's before it creates anything).
export { normalizeEmail } from './console-auth.service';
