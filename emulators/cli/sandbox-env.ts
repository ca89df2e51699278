// What `npm run sandbox` tells the service: every variable a newcomer's next steps need (the README's
// first hour, the review flow of docs/review-and-undo.md), and where the emulators send their events.
// Sandbox values are fixed, not secrets, so an .env written from them keeps working after a restart.
import pg from 'pg';

export const SANDBOX_API_KEY = 'sandbox-api-key-000000000000000000000000';
export const SANDBOX_ADMIN = { username: 'admin', password: 'sandbox-admin-password' };
/** Signs the Buyer Intelligence sandbox's row webhooks (Standard Webhooks `v1`). */
export const SANDBOX_WEBHOOK_SECRET = `whsec_${Buffer.from('buyer-intel-sandbox-webhook-secret-0000').toString('base64')}`;
export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:3000';
/** The local server's maintenance database, from which the sandbox creates a database of its own. */
const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';
/**
 * The sandbox's own database on that server: its runs, outcomes and history never mix with what else
 * the server holds (the `postgres` database is often where people's own tables live).
 */
export const SANDBOX_DATABASE = 'buyer_intel_sandbox';

/**
 * The service's own lines: Redis, the database, its port and public URL, API key, admin, and the
 * secret the provider's sandbox signs with (each CRM emulator adds its own: serviceExports). DATABASE_URL only when a PostgreSQL answers there; otherwise a
 * comment says what the embedded database allows.
 */
export async function serviceExports(serviceUrl: string, databaseUrl: string | undefined): Promise<string[]> {
  const url = new URL(serviceUrl);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const database = databaseUrl ?? (await sandboxDatabase());
  const answers = await postgresAnswers(database);
  return [
    `export REDIS_URL=${process.env.REDIS_URL || 'redis://127.0.0.1:6379'}`,
    `export REDIS_PREFIX=${process.env.REDIS_PREFIX || 'bis'}`,
    answers
      ? `export DATABASE_URL=${database}`
      : `# DATABASE_URL: no PostgreSQL answers at ${redact(database)} (${answers === false ? 'refused' : 'unreachable'}), so the service keeps its store in the embedded database (.data/pglite), one process at a time; pass --database-url to share one with the CLI`,
    `export PORT=${port}`,
    `export PUBLIC_BASE_URL=${url.origin}`,
    `export API_KEYS=${SANDBOX_API_KEY}`,
    `export ADMIN_USERNAME=${SANDBOX_ADMIN.username}`,
    `export ADMIN_PASSWORD=${SANDBOX_ADMIN.password}`,
    `export BUYER_INTEL_WEBHOOK_SECRETS=${SANDBOX_WEBHOOK_SECRET}`,
  ];
}

/**
 * The sandbox's database on the local server, created when missing; the server's URL as it is when it
 * cannot be (no server, or a user without CREATEDB): postgresAnswers then says what is left.
 */
async function sandboxDatabase(): Promise<string> {
  const own = new URL(LOCAL_POSTGRES);
  own.pathname = `/${SANDBOX_DATABASE}`;
  const client = new pg.Client({ connectionString: LOCAL_POSTGRES, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [
      SANDBOX_DATABASE,
    ]);
    if (!rowCount) await client.query(`create database ${SANDBOX_DATABASE}`);
    return own.href;
  } catch (err) {
    // Another sandbox created it a moment ago: it is there.
    if ((err as { code?: string }).code === '42P04') return own.href;
    return LOCAL_POSTGRES;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** True when PostgreSQL answers `select 1`; false when it refuses the login; undefined when unreachable. */
async function postgresAnswers(connectionString: string): Promise<boolean | undefined> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (err) {
    return (err as { code?: string }).code?.startsWith('28') ? false : undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const redact = (u: string) => u.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
