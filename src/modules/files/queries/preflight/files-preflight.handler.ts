import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type PreflightCheck, settingStatus } from '../../../../shared/preflight/preflight-check';
import { FilesConfig } from '../../files.config';
import { FileStorage } from '../../storage/file-storage';
import { FilesPreflightQuery } from './files-preflight.query';

/** Under this key prefix, apart from the organizations' `<org>/<mode>/<file_id>` keys. */
const PROBE_PREFIX = '_preflight';
/** Storage that has not answered in this time counts as not writable (a hung mount, an unreachable bucket). */
const PROBE_TIMEOUT_MS = 10_000;

@QueryHandler(FilesPreflightQuery)
export class FilesPreflightHandler implements IQueryHandler<FilesPreflightQuery> {
  constructor(
    @Inject(FilesConfig) private readonly config: FilesConfig,
    @Inject(FileStorage) private readonly storage: FileStorage,
  ) {}

  async execute({ production }: FilesPreflightQuery): Promise<PreflightCheck[]> {
    const where = this.config.driver === 's3' ? `the S3 bucket ${this.config.S3_BUCKET}` : `FILES_DIR ${this.config.FILES_DIR}`;
    const key = `${PROBE_PREFIX}/probe-${randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`)), PROBE_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.probe(key), timeout]);
    } catch (e) {
      return [
        {
          name: 'settings.files_storage',
          status: settingStatus(production),
          detail: `${where} cannot be written (${(e as Error).message.split('\n')[0]}): uploads will fail; fix its permissions or settings (docs/production.md)`,
          driver: this.config.driver,
        },
      ];
    } finally {
      clearTimeout(timer);
    }
    return [{ name: 'settings.files_storage', status: 'ok', detail: `${where} takes writes (a probe written, read and removed)`, driver: this.config.driver }];
  }

  /** Writes a probe, reads it back and removes it. */
  private async probe(key: string): Promise<void> {
    await this.storage.write(key, Readable.from([Buffer.from('preflight')]));
    const back = await this.storage.read(key);
    if (!back) throw new Error('the probe written a moment ago cannot be read back');
    back.body.resume();
    await this.storage.remove(key);
  }
}
