import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { CreatedMerchant } from '../../src/accounts/accounts.ts';
import { createApp, type AppOptions, type ChipinApp } from '../../src/app.ts';
import { compilePending } from '../../src/http/lazy-compile.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import type { DeliveryOptions } from '../../src/delivery/service.ts';
import { openTestDatabase } from './database.ts';
import { timed } from './timing.ts';

/**
 * The test harness: every test app starts here (`startTestApp`), on a database of its own by
 * default or on one the test gives (`isolatedDatabase()` in ./database.ts, shared by several
 * apps). Merchants with an access token and API shortcuts: `caller` and `twoMerchants` in
 * ./api.ts.
 */

export { isolatedDatabase, onPostgres, openTestDatabase, type IsolatedDatabase } from './database.ts';

/**
 * The default master key of this test file's apps: one per file, so that apps sharing a database
 * (as the processes of one deployment) agree with its key check value.
 */
const FILE_MASTER_KEY = randomBytes(32);

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    publicUrl: 'http://127.0.0.1:3000',
    databaseUrl: process.env.DATABASE_URL,
    dataDir: mkdtempSync(join(tmpdir(), 'chipin-test-')),
    env: 'sandbox',
    masterKey: FILE_MASTER_KEY,
    smtpUrl: undefined,
    mailFrom: 'Chipin <no-reply@chipin.invalid>',
    smsGatewayUrl: undefined,
    smsGatewayKey: undefined,
    smsSender: 'Chipin',
    logLevel: 'info',
    trustProxy: false,
    ...overrides,
  };
}

export interface TestApp extends ChipinApp {
  /** Every JSON log line the app wrote. */
  logs: string[];
}

export interface TestAppOptions {
  /**
   * The app's database. Default: a fresh one of its own (a schema on PostgreSQL), dropped when
   * the app closes. A given database is closed with the app unless `shareDatabase` is set.
   */
  db?: Database | Promise<Database>;
  /**
   * Leave `db` open when the app closes: several apps on one database (as several processes of
   * one deployment); the test closes it (`IsolatedDatabase.dispose()`).
   */
  shareDatabase?: boolean;
  /** Event delivery knobs (a short timeout, no background worker...); the service's defaults otherwise. */
  delivery?: DeliveryOptions;
  /** PSP connector definitions instead of this build's (a fake connector: ./fake-psp.ts). */
  pspDefinitions?: AppOptions['pspDefinitions'];
}

/**
 * An app on `testConfig(overrides)`, with every JSON log line it writes kept in `app.logs`
 * (at the config's `logLevel`, `info` by default).
 */
export async function startTestApp(overrides: Partial<Config> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const given = options.db === undefined ? undefined : await options.db;
  const db = given === undefined ? await openTestDatabase() : options.shareDatabase ? { ...given, close: async () => {} } : given;
  const app = await timed('app created', () =>
    createApp(testConfig(overrides), {
      db,
      logStream: { write: (s: string) => void logStream.write(s) },
      processMetrics: false,
      ...(options.delivery ? { delivery: options.delivery } : {}),
      ...(options.pspDefinitions ? { pspDefinitions: options.pspDefinitions } : {}),
    }),
  );
  // The routes' schemas compile at their first request in production (src/http/lazy-compile.ts);
  // here at once, as before that: a test's own time stays its own, and a schema that cannot
  // compile fails the app's creation rather than some test's request.
  compilePending();
  return Object.assign(app, { logs });
}

let seq = 0;
export function uniqueEmail(tag = 'merchant'): string {
  return `${tag}-${Date.now().toString(36)}-${process.pid}-${++seq}@shop.test`;
}

export function newMerchant(app: ChipinApp, name = 'Test Shop'): Promise<CreatedMerchant> {
  return app.services.accounts.createMerchant({ name, email: uniqueEmail() });
}

export function basic(user: string, password: string): string {
  return 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
}

/** POST /api/token exactly as the contract shows it. */
export async function getToken(app: ChipinApp, m: { api_key: string; api_secret: string }): Promise<string> {
  const res = await app.server.inject({
    method: 'POST',
    url: '/api/token',
    headers: { authorization: basic(m.api_key, m.api_secret), 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials',
  });
  if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
  return res.json().access_token as string;
}
