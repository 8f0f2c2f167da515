import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLAIM_LANGUAGES, ClaimLanguage, ClaimStrings } from './domain/claim-page';

/** Where the claim page's files live: static/ beside this file (the build copies it next to the compiled code). */
const STATIC_DIR = join(__dirname, 'static');

/** The claim page's script, stylesheet and strings, read once at start. */
@Injectable()
export class ClaimAssets {
  readonly files: ReadonlyMap<string, { body: Buffer; contentType: string }>;
  readonly version: string;
  private readonly strings: ReadonlyMap<ClaimLanguage, ClaimStrings>;

  constructor() {
    this.files = new Map([
      ['claim.js', { body: readFileSync(join(STATIC_DIR, 'claim.js')), contentType: 'text/javascript; charset=utf-8' }],
      ['claim.css', { body: readFileSync(join(STATIC_DIR, 'claim.css')), contentType: 'text/css; charset=utf-8' }],
    ]);
    const hash = createHash('sha256');
    for (const f of this.files.values()) hash.update(f.body);
    this.version = hash.digest('hex').slice(0, 12);
    this.strings = new Map(CLAIM_LANGUAGES.map((l) => [l, JSON.parse(readFileSync(join(STATIC_DIR, 'locales', `${l}.json`), 'utf8')) as ClaimStrings]));
  }

  stringsOf(lang: ClaimLanguage): ClaimStrings {
    return this.strings.get(lang)!;
  }

  get languages(): Array<{ code: ClaimLanguage; name: string }> {
    return CLAIM_LANGUAGES.map((code) => ({ code, name: this.stringsOf(code).language_name }));
  }
}
