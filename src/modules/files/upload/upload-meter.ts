import { createHash, Hash } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';
import { PayloadTooLargeError } from '../../../shared/errors/domain-error';

/** Bytes kept from the start of an upload for magic-number detection. */
export const SNIFF_BYTES = 64 * 1024;

/**
 * Passes an upload through unchanged while counting, hashing (SHA-256) and keeping its first
 * bytes. Fails the stream as soon as the count passes the limit, so an oversized upload is cut
 * off mid-stream instead of being read to the end.
 */
export class UploadMeter extends Transform {
  /** Bytes seen so far. (Not named `size`: upload libraries read `size` as a known total length.) */
  byteCount = 0;
  private readonly hash: Hash = createHash('sha256');
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.byteCount += chunk.length;
    if (this.byteCount > this.maxBytes) {
      done(new PayloadTooLargeError(`The file is larger than the limit of ${this.maxBytes} bytes`, { file: `must be at most ${this.maxBytes} bytes` }));
      return;
    }
    this.hash.update(chunk);
    if (this.headLength < SNIFF_BYTES) {
      const part = chunk.subarray(0, SNIFF_BYTES - this.headLength);
      this.headChunks.push(Buffer.from(part));
      this.headLength += part.length;
    }
    done(null, chunk);
  }

  get head(): Buffer {
    return Buffer.concat(this.headChunks, this.headLength);
  }

  /** True when the head is only a prefix of the content. */
  get headTruncated(): boolean {
    return this.byteCount > this.headLength;
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}
