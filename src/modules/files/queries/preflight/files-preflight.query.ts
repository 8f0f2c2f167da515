import { Query } from '@nestjs/cqrs';
import type { PreflightCheck } from '../../../../shared/preflight/preflight-check';

/**
 * The files module's go-live check (`cli doctor`, and once after the service listens): a small probe
 * object written to the configured storage (FILES_DIR, or the S3 bucket), read back and removed.
 */
export class FilesPreflightQuery extends Query<PreflightCheck[]> {
  constructor(
    /** NODE_ENV=production: storage that cannot be written fails instead of warning. */
    readonly production: boolean,
  ) {
    super();
  }
}
