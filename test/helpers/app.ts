import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { CreatedMerchant } from '../../src/accounts/accounts.ts';
import { createApp, type ChipinApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { openTestDatabase } from './database.ts';

export { onPostgres, openTestDatabase } from './database.ts';

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    publicUrl: 'http://127.0.0.1:3000',
    databaseUrl: process.env.DATABASE_URL,
    dataDir: mkdtempSync(join(tmpdir(), 'chipin-test-')),
    env: 'sandbox',
    masterKey: randomBytes(32),
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

export async function startTestApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  const app = await createApp(testConfig(overrides), {
    db: await openTestDatabase(),
    logStream: { write: (s: string) => void logStream.write(s) },
    processMetrics: false,
  });
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
