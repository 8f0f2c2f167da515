import { fileNameProblem, likePattern } from './file-name';
import { isSafeStorageKey, storageKeyOf } from './storage-key';

describe('storageKeyOf', () => {
  it('joins tenant and id', () => {
    expect(storageKeyOf('org_1', 'test', 'file_2')).toBe('org_1/test/file_2');
  });

  it('refuses anything that could leave the storage root', () => {
    expect(() => storageKeyOf('org_1', 'test', '../x')).toThrow();
    expect(() => storageKeyOf('org_1', '..', 'file_2')).toThrow();
    expect(isSafeStorageKey('org_1/test/file_2')).toBe(true);
    expect(isSafeStorageKey('org_1/../file_2')).toBe(false);
    expect(isSafeStorageKey('/etc/passwd')).toBe(false);
  });
});

describe('file names', () => {
  it.each([
    ['report.pdf', null],
    ['../../etc/passwd', null],
    ['', 'must not be empty'],
    ['   ', 'must not be empty'],
    ['a'.repeat(256), 'must be at most 255 characters'],
    ['a\u0000b', 'must not contain control characters'],
  ])('%j -> %j', (name, problem) => {
    expect(fileNameProblem(name)).toBe(problem);
  });

  it('escapes LIKE wildcards', () => {
    expect(likePattern('50%_a\\b')).toBe('%50\\%\\_a\\\\b%');
  });
});
