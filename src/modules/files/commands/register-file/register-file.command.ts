import { Command } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import type { ReceivedContent } from '../../upload/upload-receiver';

/** Records a file whose bytes are already in storage. Returns the new file's id. */
export class RegisterFileCommand extends Command<{ id: string }> {
  constructor(
    readonly scope: Scope,
    readonly name: string,
    readonly content: ReceivedContent,
  ) {
    super();
  }
}
