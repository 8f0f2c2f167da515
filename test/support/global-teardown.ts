import { dropDatabase, dropTemplateDatabase, isCachedTemplate, TEMPLATE_ENV } from './pg';
import { errorLines, removeHostLeftovers } from './server';

export default async function globalTeardown(): Promise<void> {
  const server = globalThis.__TEST_SERVER__;
  if (server) {
    await server.stop();
    const errors = errorLines(server).slice(0, 20);
    if (errors.length) process.stdout.write(`\nService errors logged during the run:\n${errors.join('\n')}\n`);
  }
  const pgServer = process.env.TEST_PG_SERVER_URL;
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (pgServer && databaseUrl) await dropDatabase(pgServer, databaseUrl);
  const template = process.env[TEMPLATE_ENV];
  // A kept template stays for the next run (test/support/pg.ts cachedTemplateDatabase).
  if (pgServer && template && !isCachedTemplate(template)) await dropTemplateDatabase(pgServer, template);
  removeHostLeftovers();
}
