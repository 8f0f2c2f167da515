import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

const STATIC_DIR = join(__dirname, 'static');
const JS = 'text/javascript; charset=utf-8';

/**
 * The console's files, read once at start-up: its stylesheet and script from static/, htmx and
 * Chart.js from their installed packages (no CDN). Linked with a content hash (`?v=`).
 */
@Injectable()
export class ConsoleAssets {
  readonly files: ReadonlyMap<string, ConsoleAsset>;
  readonly version: string;

  constructor() {
    const files = new Map<string, ConsoleAsset>([
      ['console.css', { body: readFileSync(join(STATIC_DIR, 'console.css')), contentType: 'text/css; charset=utf-8' }],
      ['console.js', { body: readFileSync(join(STATIC_DIR, 'console.js')), contentType: JS }],
      // htmx (BSD-2-Clause) and Chart.js (MIT), from node_modules as installed (chart.js resolves to its dist/).
      ['htmx.min.js', { body: readFileSync(join(dirname(require.resolve('htmx.org/package.json')), 'dist', 'htmx.min.js')), contentType: JS }],
      ['chart.umd.min.js', { body: readFileSync(join(dirname(require.resolve('chart.js')), 'chart.umd.min.js')), contentType: JS }],
    ]);
    this.files = files;
    const hash = createHash('sha256');
    for (const f of files.values()) hash.update(f.body);
    this.version = hash.digest('hex').slice(0, 12);
  }
}
