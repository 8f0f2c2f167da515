import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Api, ApiResponse } from '../../support/api';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { ADMIN_TOKEN } from '../../support/server';

export interface UploadOptions {
  filename?: string;
  name?: string;
  /** The Content-Type the client claims for the part. */
  contentType?: string;
  field?: string;
}

export function uploadForm(content: Buffer | null, options: UploadOptions = {}): FormData {
  const form = new FormData();
  if (options.name !== undefined) form.append('name', options.name);
  if (content) {
    form.append(
      options.field ?? 'file',
      new Blob([new Uint8Array(content)], { type: options.contentType ?? 'application/octet-stream' }),
      options.filename ?? 'upload.bin',
    );
  }
  return form;
}

export function upload(api: Api, content: Buffer | null, options: UploadOptions = {}): Promise<ApiResponse> {
  return api.request('POST', '/files/upload', { rawBody: uploadForm(content, options) });
}

export interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
  json: any;
}

/** GET of a content URL, keeping the body as bytes. */
export async function download(url: string, key: string | null): Promise<Download> {
  const res = await fetch(url, { headers: key ? { authorization: key } : {} });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: any = null;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) json = JSON.parse(bytes.toString('utf8'));
  return { status: res.status, headers: res.headers, bytes, json };
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A valid 1x1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

export const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');

export const GZIP = gzipSync(Buffer.from('some archived text '.repeat(20)));

/** A minimal MP4 header (ftyp box, brand isom). */
export const MP4 = Buffer.concat([
  Buffer.from([0x00, 0x00, 0x00, 0x18]),
  Buffer.from('ftypisom'),
  Buffer.from([0x00, 0x00, 0x02, 0x00]),
  Buffer.from('isomiso2'),
  Buffer.from([0x00, 0x00, 0x00, 0x08]),
  Buffer.from('free'),
]);

/** A short silent PCM WAV. */
export function wav(): Buffer {
  const samples = Buffer.alloc(800);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]);
}

export interface OwnService extends IsolatedService {
  base: string;
  createKey(orgId: string, mode: 'test' | 'live', readOnly?: boolean): Promise<string>;
}

let orgCounter = 0;

/** A service process of our own (other settings than the shared one), on a fresh database. */
export async function startOwnService(env: Record<string, string>): Promise<OwnService> {
  const isolated = await startIsolatedService(env);
  const base = isolated.server.baseUrl;
  return {
    ...isolated,
    base,
    createOrg: (name = `Files org ${process.pid}-${++orgCounter}`) => isolated.createOrg(name),
    async createKey(orgId, mode, readOnly = false) {
      const res = await new Api(null, base).post(
        `/admin/organizations/${orgId}/keys`,
        { mode, read_only: readOnly },
        { headers: { 'x-admin-token': ADMIN_TOKEN } },
      );
      if (res.status !== 201) throw new Error(`could not create key: ${res.text}`);
      return res.body.data.key;
    },
  };
}
