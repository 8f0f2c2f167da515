import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CHECKOUT_LANGUAGES, CheckoutLanguage } from './domain/locale';
import type { Strings } from './domain/page';

export interface Asset {
  body: Buffer;
  contentType: string;
}

/** Where the page's files live: static/ beside this file (the build copies it next to the compiled code). */
const STATIC_DIR = join(__dirname, 'static');

/** The page's script: checkout.js, the module the page loads, and the modules it imports, served from the same route. */
export const CHECKOUT_SCRIPTS = ['checkout.js', 'page.js', 'amounts.js', 'currencies.js', 'api.js', 'qr.js'] as const;

/**
 * The page's script modules, stylesheet, QR library and locale strings, read once at start-up. The script
 * and stylesheet are linked with a content hash (`?v=`), so browsers may keep them for a year.
 */
@Injectable()
export class CheckoutAssets {
  readonly files: ReadonlyMap<string, Asset>;
  readonly version: string;
  private readonly strings: ReadonlyMap<CheckoutLanguage, Strings>;

  constructor() {
    const js = 'text/javascript; charset=utf-8';
    const files = new Map<string, Asset>([
      ...CHECKOUT_SCRIPTS.map((name): [string, Asset] => [name, { body: readFileSync(join(STATIC_DIR, name)), contentType: js }]),
      ['checkout.css', { body: readFileSync(join(STATIC_DIR, 'checkout.css')), contentType: 'text/css; charset=utf-8' }],
      ['favicon.svg', { body: readFileSync(join(STATIC_DIR, 'favicon.svg')), contentType: 'image/svg+xml' }],
      // The QR code library (npm qrcode-generator, MIT), as its own ES module build.
      ['qrcode.mjs', { body: readFileSync(join(dirname(require.resolve('qrcode-generator')), 'qrcode.mjs')), contentType: js }],
    ]);
    this.files = files;
    const hash = createHash('sha256');
    for (const f of files.values()) hash.update(f.body);
    this.version = hash.digest('hex').slice(0, 12);
    this.strings = new Map(CHECKOUT_LANGUAGES.map((l) => [l, JSON.parse(readFileSync(join(STATIC_DIR, 'locales', `${l}.json`), 'utf8')) as Strings]));
  }

  stringsOf(lang: CheckoutLanguage): Strings {
    return this.strings.get(lang)!;
  }

  get languages(): Array<{ code: CheckoutLanguage; name: string }> {
    return CHECKOUT_LANGUAGES.map((code) => ({ code, name: this.stringsOf(code).language_name }));
  }
}
