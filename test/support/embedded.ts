import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './server';

/**
 * Runs `work` on the embedded database of a stopped service: a node process runs the database server
 * on `dataDir` with the service's own code (dist/) for the length of the call, as the CLI does.
 */
export async function withStoppedEmbedded<T>(dataDir: string, work: (url: string) => Promise<T>): Promise<T> {
  const module = JSON.stringify(join(ROOT, 'dist', 'src', 'shared', 'db', 'embedded-postgres.js'));
  const script = `require(${module}).startEmbeddedPostgres(process.argv[1], 4).then(
    (db) => {
      process.stdout.write(db.url + '\\n');
      process.stdin.on('end', () => db.stop().then(() => process.exit(0)));
      process.stdin.resume();
    },
    (e) => {
      process.stderr.write(String(e && e.stack) + '\\n');
      process.exit(1);
    },
  );`;
  const child = spawn(process.execPath, ['-e', script, dataDir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    void exited.then(() => reject(new Error('the embedded database did not start')));
  });
  try {
    return await work(url);
  } finally {
    child.stdin.end();
    await exited;
  }
}

/**
 * The address of the embedded database a service runs on `dataDir` (its embedded-db.json), with the
 * password from the folder's password file, as the CLI connects.
 */
export function embeddedUrl(dataDir: string): string {
  const url = new URL((JSON.parse(readFileSync(join(dataDir, 'embedded-db.json'), 'utf8')) as { url: string }).url);
  url.password = readFileSync(join(dataDir, 'embedded-db.password'), 'utf8').trim();
  return url.toString();
}
