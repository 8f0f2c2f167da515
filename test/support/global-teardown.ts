import { dropDatabase } from './pg';

export default async function globalTeardown(): Promise<void> {
  const server = globalThis.__TEST_SERVER__;
  if (server) await server.stop();
  const pgServer = process.env.TEST_PG_SERVER_URL;
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (pgServer && databaseUrl) await dropDatabase(pgServer, databaseUrl);
}
