import { dropDatabase } from './pg';

export default async function globalTeardown(): Promise<void> {
  const server = globalThis.__TEST_SERVER__;
  if (server) {
    await server.stop();
    // Server-side errors (500s are logged at level 50 with their support id) help explain a failed run.
    const errors = server.output().split('\n').filter((line) => line.includes('"level":50')).slice(0, 20);
    if (errors.length) process.stdout.write(`\nService errors logged during the run:\n${errors.join('\n')}\n`);
  }
  const pgServer = process.env.TEST_PG_SERVER_URL;
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (pgServer && databaseUrl) await dropDatabase(pgServer, databaseUrl);
}
