import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';

export class DeleteFileCommand extends Command<{ id: string }> {
  constructor(
    readonly scope: Scope,
    readonly fileId: string,
  ) {
    super();
  }
}
