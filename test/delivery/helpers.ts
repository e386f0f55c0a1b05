/**
 * Test helpers for event delivery: a real HTTP receiver on 127.0.0.1 whose answer the test
 * switches, the delivery tests' app settings, and shortcuts to produce events. Apps, databases
 * and merchants come from test/helpers (startTestApp, isolatedDatabase, caller).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ChipinApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { DeliveryOptions } from '../../src/delivery/service.ts';
import { OUTBOX_CHANNEL } from '../../src/domain/events.ts';
import { parsePublicId } from '../../src/domain/ids.ts';
import { applyMove } from '../../src/purchases/transitions.ts';
import { minimalPurchase, type Caller } from '../helpers/api.ts';

// ---------------------------------------------------------------------------------------------
// Apps: `startTestApp(config, { db, delivery })` of test/helpers/app.ts, on an `isolatedDatabase()`
// of test/helpers/database.ts, so that the delivery workers of other suites running in parallel
// on the shared PostgreSQL test database never take (or are taken) deliveries of this file.

/** No job poller: the tests run what falls due themselves. */
export const NO_JOB_POLL: Partial<Config> = { jobPollIntervalMs: 0 };

/** Delivery driven by the test (`worker.runDue()`): a short timeout, no jitter, no background worker unless a test turns it on. */
export const TEST_DELIVERY: DeliveryOptions = { timeoutMs: 300, random: () => 0.5, background: false };

// ---------------------------------------------------------------------------------------------
// The receiver

export type Answer =
  | { kind: 'status'; code: number; headers?: Record<string, string>; body?: string }
  | { kind: 'slow'; ms: number; code?: number }
  /** Holds the request open without answering until the receiver closes. */
  | { kind: 'hang' };

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export class Receiver {
  readonly received: Received[] = [];
  answer: Answer | ((r: Received) => Answer) = { kind: 'status', code: 204 };
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #waiters = new Set<() => void>();
  readonly #held = new Set<ServerResponse>();
  port = 0;

  private constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.received.push(r);
        for (const w of this.#waiters) w();
        const a = typeof this.answer === 'function' ? this.answer(r) : this.answer;
        if (a.kind === 'hang') {
          this.#held.add(res);
          return;
        }
        if (a.kind === 'slow') {
          const t = setTimeout(() => res.writeHead(a.code ?? 200).end('late'), a.ms);
          res.on('close', () => clearTimeout(t));
          return;
        }
        res.writeHead(a.code, { 'content-type': 'text/plain', ...(a.headers ?? {}) }).end(a.body ?? '');
      });
    });
    this.#server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  static async start(): Promise<Receiver> {
    const r = new Receiver();
    await new Promise<void>((resolve) => r.#server.listen(0, '127.0.0.1', resolve));
    r.port = (r.#server.address() as AddressInfo).port;
    return r;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Resolves once `test` holds on what was received; rejects after `timeoutMs`. */
  waitFor(test: (received: Received[]) => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (test(this.received)) done(resolve);
      };
      const timer = setTimeout(() => done(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; received ${this.received.length}`))), timeoutMs);
      const done = (fn: () => void) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        fn();
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** Ends held requests without an answer (the sender sees a reset). */
  releaseHeld(): void {
    for (const res of this.#held) res.destroy();
    this.#held.clear();
  }

  async close(): Promise<void> {
    this.releaseHeld();
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

// ---------------------------------------------------------------------------------------------
// Merchants, webhooks, purchases, events

export interface WebhookSettingsJson {
  url: string;
  token: string;
  secret: string;
  events: string[];
  previous_secret_until?: string;
}

export async function setWebhook(app: ChipinApp, m: Caller, url: string, events?: string[], rotate?: boolean): Promise<WebhookSettingsJson> {
  const res = await app.server.inject({
    method: 'PUT',
    url: '/api/backoffice/webhook',
    headers: { authorization: m.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify({ url, ...(events ? { events } : {}), ...(rotate !== undefined ? { rotate } : {}) }),
  });
  if (res.statusCode !== 200) throw new Error(`PUT /api/backoffice/webhook: ${res.statusCode} ${res.body}`);
  return res.json() as WebhookSettingsJson;
}

/** A purchase created through Merchant API v1; answers its bare uuid. */
export async function newPurchase(m: Caller, over: Record<string, unknown> = {}): Promise<string> {
  const res = await m.post('/api/merchants/v1/purchases', minimalPurchase(over));
  if (res.statusCode !== 201) throw new Error(`create purchase: ${res.statusCode} ${res.body}`);
  return (res.json() as { id: string }).id;
}

/** A purchase created through the Token API's purchase_link (reference, metadata, notification URL). */
export async function newLinkPurchase(m: Caller, data: Record<string, unknown>): Promise<string> {
  const res = await m.post(`/api/merchants/${m.offer('SHARED')}/purchase_link`, {
    data: { title: 'Weekend in Lisbon', amountCents: 30_000, email: 'leader@example.com', language: 'en_GB', ...data },
    purchase_link_settings: {},
  });
  if (res.statusCode !== 200) throw new Error(`purchase_link: ${res.statusCode} ${res.body}`);
  return parsePublicId('pur', (res.json() as { purchase_uid: string }).purchase_uid)!;
}

/** The leader's card is authorised: the move writes `purchase.leader_processed` (paymentProcessed). */
export async function leaderProcessed(app: ChipinApp, m: Caller, purchaseId: string): Promise<void> {
  const r = await app.services.db.transaction((tx) => applyMove(tx, app.services.clock, m.accountId, purchaseId, 'leaderProcessed'));
  if (!r.ok) throw new Error(`leaderProcessed: ${JSON.stringify(r)}`);
}

/**
 * Writes a payment event as the payment flows do (the state is kept; the event waits in the
 * outbox); answers its id. The raw inserts of other tests, `dispatched_at` NULL and no outbox row,
 * are events as the previous build writes them (docs/webhooks.md#how-it-works-operators).
 */
export async function insertEvent(app: ChipinApp, m: Caller, purchaseId: string, type: string, data: Record<string, unknown> = {}): Promise<number> {
  const { rows } = await app.services.db.query<{ id: number; state: string }>(
    `WITH e AS (
       INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at, dispatched_at)
       SELECT account_id, id, $3, state, state, $4, $5, $5 FROM purchases WHERE account_id = $1 AND id = $2
       RETURNING id, account_id, purchase_id
     ), o AS (
       INSERT INTO event_outbox (event_id, account_id, purchase_id) SELECT id, account_id, purchase_id FROM e
     )
     SELECT id FROM e`,
    [m.accountId, purchaseId, type, JSON.stringify(data), app.services.clock.now()],
  );
  if (!rows[0]) throw new Error('no such purchase');
  app.services.db.notify(OUTBOX_CHANNEL); // as every writer of events does
  return Number(rows[0].id);
}

/** A PSP account row of the merchant in `environment`, for tests that read only its environment (no usable credentials). */
export async function pspAccount(app: ChipinApp, m: Caller, environment: 'test' | 'live'): Promise<string> {
  const id = randomUUID();
  const now = app.services.clock.now();
  await app.services.db.query(
    `INSERT INTO psp_accounts (id, account_id, psp, environment, label, credentials_enc, created_at, updated_at) VALUES ($1, $2, 'lyra', $3, $3, 'unused', $4, $4)`,
    [id, m.accountId, environment, now],
  );
  return id;
}

export interface DeliveryRow {
  id: string;
  kind: string;
  status: string;
  attempts: number;
  failures: number;
  next_attempt_at: Date | null;
  event_id: number;
  last_status_code: number | null;
}

export async function deliveries(app: ChipinApp, accountId: string): Promise<DeliveryRow[]> {
  const { rows } = await app.services.db.query<DeliveryRow>(
    'SELECT id, kind, status, attempts, failures, next_attempt_at, event_id, last_status_code FROM deliveries WHERE account_id = $1 ORDER BY event_id, kind',
    [accountId],
  );
  return rows.map((r) => ({ ...r, event_id: Number(r.event_id) }));
}

/** Moves the sandbox clock forward and runs what fell due (as POST /api/sandbox/clock does). */
export async function advance(app: ChipinApp, seconds: number): Promise<number> {
  await app.services.sandboxClock!.advance(seconds);
  return app.services.dueWork.drain();
}

/**
 * The contract's notification signature, written here from the contract's four steps without
 * the service's code: the test's own witness.
 */
export function contractSignature(body: Record<string, unknown>, secret: string): string {
  const keys = Object.keys(body)
    .filter((k) => k !== 'additional_data' && k !== 'metadata' && k !== 'signature')
    .sort();
  const pairs = keys.map((k) => `${k}=${body[k] === null || body[k] === undefined ? '' : String(body[k])}`);
  let text = '';
  pairs.forEach((p, i) => {
    text += (i === 0 ? '' : secret) + p;
  });
  return createHash('sha256').update(text).digest('hex').toUpperCase();
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
