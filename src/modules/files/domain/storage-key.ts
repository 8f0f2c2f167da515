/**
 * Where a file's bytes live in storage: built only from the tenant and the generated file id,
 * never from the client's name, so a name like `../../etc/passwd` cannot steer the write.
 */
const SAFE_SEGMENT = /^[A-Za-z0-9_-]{1,100}$/;

export function storageKeyOf(organizationId: string, mode: string, fileId: string): string {
  const segments = [organizationId, mode, fileId];
  for (const s of segments) {
    if (!SAFE_SEGMENT.test(s)) throw new Error(`unsafe storage key segment: ${JSON.stringify(s)}`);
  }
  return segments.join('/');
}

export function isSafeStorageKey(key: string): boolean {
  const segments = key.split('/');
  return segments.length >= 1 && segments.every((s) => SAFE_SEGMENT.test(s));
}
