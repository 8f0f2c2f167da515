import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isSafeStorageKey } from '../domain/storage-key';
import { FileStorage, StoredObject } from './file-storage';

/**
 * Files in a local folder: `<FILES_DIR>/<org>/<mode>/<file_id>`. A write goes to a temporary file
 * beside the target and is renamed into place only when complete, so a failed or oversized upload
 * never leaves a partial file under the key.
 */
export class LocalFileStorage extends FileStorage {
  readonly driver = 'local' as const;
  private readonly root: string;

  constructor(root: string) {
    super();
    this.root = resolve(root);
  }

  private pathOf(key: string): string {
    if (!isSafeStorageKey(key)) throw new Error(`unsafe storage key: ${JSON.stringify(key)}`);
    const path = resolve(this.root, ...key.split('/'));
    if (!path.startsWith(this.root + sep)) throw new Error('storage key escapes the storage folder');
    return path;
  }

  async write(key: string, body: Readable): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temp = `${path}.${randomUUID()}.part`;
    try {
      await pipeline(body, createWriteStream(temp, { flags: 'wx', mode: 0o640 }));
      await rename(temp, path);
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
  }

  async read(key: string): Promise<StoredObject | null> {
    const path = this.pathOf(key);
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    return { body: handle.createReadStream() };
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
