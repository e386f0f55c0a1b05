/**
 * Hostile input on every route: each operation of the OpenAPI document (read at run time from
 * GET /api/openapi.json, so routes added later are fuzzed without editing this file) and every
 * other route of the server's own route table (`registeredRoutes`, as test/http/route-walk.test.ts
 * walks it): the hosted pages (/pay, /pledge, /sandbox, /sandbox-psp, /psp-challenge), the
 * shopper's space (/space, with a signed-in shopper who leads the purchase of the path), the
 * back-office pages (/dashboard, with a signed-in session; forms keep a wrong CSRF token, so the
 * pages' parsing and guards are what is fuzzed, never a real refund), and the documents, scripts
 * and probes. Only a HEAD route whose GET is fuzzed is left out (Fastify's twin, the same
 * handler); a route added later is fuzzed without editing this file, and the enumeration test
 * fails if one is not.
 *
 * Each case starts from a request the route would accept (valid credentials, a body built from
 * the operation's schema or a known-good one) and spoils ONE part of it with a generated hostile
 * value: NUL and unpaired surrogates in text, deep or huge JSON, dates no database holds, hand-made
 * cursors, long or badly percent-encoded path parameters, wrong types, hostile credentials. The
 * answer must be:
 * - below 500;
 * - in the route's documented error format (docs/api-conventions.md) when it is a refusal, with
 *   an `x-request-id` header on every answer;
 * - without effect: the row count of every table, and the sandbox clock, are unchanged.
 *
 * Then every path parameter and every query parameter of every route gets each of the hostile ids
 * of docs/security.md#returns-and-ids, not at random: 36 dashes, 36 × `f`, the id's
 * prefix with either, over-long, non-ASCII, `../`, percent-encoded (the valid id, and NUL or bad
 * escapes after it). Never a 5xx, and a refusal changes nothing.
 *
 * `npm test` (CI) runs a fixed seed, 5 generated cases per route, and each hostile id in each
 * parameter name once per route family and caller kind (the parsers and guards they share);
 * `npm run test:full` (../helpers/full-run.ts) runs 40 cases per route and every hostile id in every
 * parameter of every route. A longer run:
 *   FUZZ_RUNS=500 FUZZ_SEED=$RANDOM npx vitest run test/http/fuzz.test.ts
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredRoutes } from '../../src/http/server.ts';
import { MAX_JSON_DEPTH } from '../../src/http/input-rules.ts';
import { basic, isolatedDatabase, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { cheapDashboardPassword, minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { NO_JOB_POLL, TEST_DELIVERY } from '../delivery/helpers.ts';
import { signIn } from '../helpers/dashboard.ts';
import { shopperSessions } from '../../src/http/routes/shopper-space/guard.ts';
import { FULL_RUN } from '../helpers/full-run.ts';

/** Cases per route; the default keeps this file well under a minute on PGlite. */
const RUNS = Number(process.env.FUZZ_RUNS ?? (FULL_RUN ? 40 : 5));
const SEED = Number(process.env.FUZZ_SEED ?? 20260630);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Operation {
  method: string;
  /** Fastify form, `:name` for parameters. */
  path: string;
  family: 'oauth' | 'v1' | 'token' | 'page';
  auth: 'bearer' | 'key' | 'dashboard' | 'session' | 'shopper' | 'none';
  /** Query parameter names the operation declares. */
  query: string[];
  /** Valid values of the query parameters a request needs to reach the route's handler (a return's `payment`). */
  baseQuery: Record<string, string>;
  /** A body the route accepts (or at least one of the right shape), undefined when it takes none. */
  body: Record<string, Json> | undefined;
  form: boolean;
}

let iso: IsolatedDatabase;
let app: TestApp;
let a: Caller;
let operations: Operation[];
/** A valid value for each path parameter name: merchant A's own objects. */
let params: Record<string, string>;
let tables: string[];
/** Merchant A's back-office session cookie. */
let sessionCookie: string;
/** The space's session cookie of the shopper who leads merchant A's purchases. */
let shopperCookie: string;
/** Query parameters of the pages (outside the API document) that take some. */
const PAGE_QUERIES: Record<string, string[]> = {
  '/dashboard/purchases': ['q', 'state', 'offer', 'from', 'to', 'cursor', 'lang'],
  '/dashboard/purchases.csv': ['q', 'state', 'offer', 'from', 'to'],
  '/dashboard/reports': ['from', 'to', 'lang'],
  '/dashboard/developers': ['revoked', 'before', 'done'],
  '/dashboard/disputes': ['cursor'],
  '/dashboard/invitation': ['token'],
  '/dashboard/psp-accounts/new': ['psp'],
  '/psp-challenge': ['f', 's'],
  '/pay/:purchase_uid': ['embed', 'lang'],
  '/pay/:purchase_uid/return': ['payment', 'embed', 'lang'],
  '/pledge/:pledge_uid/return': ['payment', 'lang'],
  '/space/purchases/:purchase_uid': ['done', 'problem', 'reason', 'fields', 'lang'],
  '/space/sign-in': ['then'],
  '/sandbox/inbox': ['purchase_uid'],
};
/** The path parameters in a route's template: `:name`s, and `*` for a wildcard. */
const paramNames = (path: string) => [...path.matchAll(/:([a-z_]+)|\*$/g)].map((m) => m[1] ?? '*');
const fillPath = (path: string, value: (name: string) => string) => path.replace(/:([a-z_]+)|\*$/g, (_, n: string | undefined) => value(n ?? '*'));

// ---------------------------------------------------------------------------------------------
// Known-good bodies where the schema alone does not make one (patterns, cross-field rules)

const CARD = '4242 4242 4242 4242';
const GOOD_BODIES: Record<string, Record<string, Json>> = {
  'POST /api/merchants/v1/purchases': minimalPurchase({ ref: 'FUZZ-1', client: { email: 'leader@example.com', ref: 'CUST-FUZZ' } }) as Record<string, Json>,
  'POST /api/merchants/:merchant_uid/purchase_link': {
    data: { title: 'Fuzz', amountCents: 10_000, email: 'leader@example.com', language: 'en_GB', metadata: { order: 'A-1', nested: { ok: true } } },
  },
  'POST /api/sandbox/purchases/:purchase_uid/pay': { card_number: CARD, pledgers: [{ email: 'ann@example.com', name: 'Ann', amount_cents: 3_000 }] },
  'POST /api/sandbox/pledges/:pledge_id/pay': { card_number: CARD },
  'POST /api/merchants/:merchant_uid/simulate_payment_schedule': { amount_cents: 30_000, created: '2026-01-31' },
  'POST /api/users/me/merchants/:merchant_uid/simulate_payment_schedule': { amount_cents: 30_000, created: '2026-01-31' },
  'POST /api/sandbox/clock': { now: '2026-03-04T10:15:00.000Z' },
  'PUT /api/backoffice/webhook': { url: 'https://shop.example/hook' },
  'POST /api/token': { grant_type: 'client_credentials' },
  'POST /pay/:purchase_uid': {
    csrf: 'x',
    card_number: CARD,
    card_expiry: '12/30',
    card_cvc: '123',
    card_name: 'Ann',
    pledger_name: 'Bob',
    pledger_email: 'bob@example.com',
    pledger_amount: '30.00',
  },
  'POST /pledge/:pledge_uid': { csrf: 'x', card_number: CARD, card_expiry: '12/30', card_cvc: '123', card_name: 'Ann' },
};

/** A value of the right shape from a JSON schema: examples first, then the type's simplest value. */
function sample(schema: Record<string, unknown> | undefined, depth = 0): Json {
  if (!schema || depth > 6) return 'x';
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0] as Json;
  if (schema.default !== undefined) return schema.default as Json;
  if ('const' in schema) return schema.const as Json;
  if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
  const variants = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (variants?.[0]) return sample(variants[0], depth + 1);
  switch (schema.type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      const required = new Set((schema.required ?? []) as string[]);
      return Object.fromEntries(
        Object.entries(props)
          .filter(([k]) => required.has(k))
          .map(([k, v]) => [k, sample(v, depth + 1)]),
      );
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return (schema.minimum as number | undefined) ?? 1;
    case 'boolean':
      return false;
    default:
      return schema.format === 'email' ? 'a@example.com' : schema.format === 'uri' ? 'https://shop.example/x' : schema.format === 'date-time' ? '2026-01-01T00:00:00Z' : 'x';
  }
}

function familyOf(path: string): Operation['family'] {
  if (!path.startsWith('/api/')) return 'page';
  if (path === '/api/token') return 'oauth';
  return path.startsWith('/api/merchants/v1/') ? 'v1' : 'token';
}

// ---------------------------------------------------------------------------------------------
// Hostile values

/** Texts no field should store. */
const BAD_TEXTS = ['\u0000', 'a\u0000b', '\ud800', 'x\udc00', 'ok\ud83d', '\u0000\ud800'];
/** Dates a `date-time` schema may accept but no database holds. */
const BAD_DATES = [
  '2026-06-30T23:59:60Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:60Z',
  '+275760-09-13T00:00:00.000Z',
  '-000001-01-01T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '0000-02-29',
];
/** Path or query fragments that are not valid percent-encoded UTF-8, or decode to NUL / a surrogate. */
const BAD_ENCODINGS = ['%ZZ', '%', '%C0%AE', '%ED%A0%80', '%00', '%FF%FE', 'a%2', '%E2%82'];

const hostileText = fc.oneof(
  fc.constantFrom(...BAD_TEXTS),
  fc.tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...BAD_TEXTS), fc.string({ maxLength: 8 })).map(([x, bad, y]) => x + bad + y),
  // Any UTF-16 code unit, lone surrogates included.
  fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 1, maxLength: 12 }).map((units) => String.fromCharCode(...units) + '\u0000'),
);

/** Raw JSON text to splice into a body. */
const hostileJson: fc.Arbitrary<string> = fc.oneof(
  hostileText.map((s) => JSON.stringify(s)),
  fc.constantFrom(...BAD_DATES).map((s) => JSON.stringify(s)),
  fc.integer({ min: MAX_JSON_DEPTH + 1, max: 6_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: MAX_JSON_DEPTH + 1, max: 6_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)),
  hostileText.map((s) => `{${JSON.stringify(s)}:1}`), // a key that breaks the text rule
  fc.constantFrom('null', 'true', '[]', '{}', '1e308', '-0', '9007199254740993', '"' + 'x'.repeat(300_000) + '"', '[' + '1,'.repeat(20_000) + '1]'),
);

/**
 * Hostile values for an id, already in URL form, made from the parameter's valid value
 * (its prefix, `pur_`, `plg_`, …, is kept on some): ids a loose check such as `/^[0-9a-f-]{36}$/`
 * let through to the database, over-long, non-ASCII, `../`, and percent-encoded ones.
 */
function hostileIds(valid: string | undefined): string[] {
  const id = valid ?? '00000000-0000-4000-8000-000000000000';
  const prefix = /^[a-z]+_/.exec(id)?.[0] ?? '';
  const encodeAll = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
  return [
    ...new Set([
      '-'.repeat(36),
      'f'.repeat(36),
      'F'.repeat(36),
      `${prefix}${'-'.repeat(36)}`,
      `${prefix}${'f'.repeat(36)}`,
      `${prefix}ffffffff-ffff-ffff-ffff-fffffffffff-`,
      `${id}0`,
      'f'.repeat(2_000),
      encodeURIComponent('é'.repeat(36)),
      encodeURIComponent(`${prefix}ｆｆｆｆｆｆｆｆ-ｆｆｆｆ-４ｆｆｆ-８ｆｆｆ-ｆｆｆｆｆｆｆｆｆｆｆｆ`),
      '..%2F..%2Fetc%2Fpasswd',
      '..',
      encodeAll(id),
      `${id}%00`,
      `${id.slice(0, -1)}%ZZ`,
      id.toUpperCase(),
    ]),
  ];
}

/** A path parameter value, already in URL form. */
const hostileParam = fc.oneof(
  fc.constantFrom(...BAD_ENCODINGS),
  fc.integer({ min: 101, max: 400 }).map((n) => 'p'.repeat(n)),
  fc.constantFrom('pur_%00', 'mer_%ED%A0%80', '..%2F..%2Fetc', 'pur_' + '0'.repeat(200), '%20', 'null', '-1'),
  fc.constantFrom(...hostileIds('pur_00000000-0000-4000-8000-000000000000')),
);

/** A query string value, already in URL form. */
const hostileQueryValue = fc.oneof(
  fc.constantFrom(...BAD_ENCODINGS),
  fc.constantFrom(...BAD_DATES).map(encodeURIComponent),
  fc.constantFrom('2026-06-30T23:59:60Z', '0000-01-01T00:00:00Z').map((s) => s.replace(/:/g, '%3A')),
  cursorArb(),
  fc.constantFrom('-1', '1e400', '0x10', 'true', '', 'x'.repeat(5_000)),
  fc.constantFrom(...hostileIds(undefined), '../../etc/passwd'),
);

/** Hand-made cursors of both lists: out-of-range dates, huge event ids, NUL. */
function cursorArb(): fc.Arbitrary<string> {
  const date = fc.oneof(fc.constantFrom(...BAD_DATES), fc.constant('1970-01-01T00:00:00.000Z'));
  const id = fc.constantFrom('00000000-0000-4000-8000-000000000000', 'x', '\u0000');
  const event = fc.constantFrom('1', '9223372036854775808', '99999999999999999999', '-5', '0');
  return fc
    .oneof(
      fc.tuple(date, id).map(([d, i]) => `${d}|${i}`),
      fc.tuple(date, event, id).map(([d, e, i]) => `${d}|${e}|${i}`),
    )
    .map((s) => Buffer.from(s).toString('base64url'));
}

/** Hostile credentials, as an Authorization header value. */
const hostileBasic = fc.oneof(
  fc.tuple(hostileText, fc.string({ maxLength: 10 })).map(([u, p]) => basic(u, p)),
  fc.tuple(fc.constant('fuzz@shop.test'), hostileText).map(([u, p]) => basic(u, p)),
  fc.constantFrom('%00', 'key%00', '%ED%A0%80').map((u) => basic(u, 'secret%00')),
  fc.constant('Basic ' + Buffer.from([0x00, 0x3a, 0x00]).toString('base64')),
  fc.constant('Basic ' + Buffer.from([0xed, 0xa0, 0x80, 0x3a, 0x61]).toString('base64')),
);

type Spoil =
  | { part: 'body'; at: number; json: string }
  | { part: 'query'; name: number; value: string }
  | { part: 'param'; at: number; value: string }
  | { part: 'credentials'; header: string }
  | { part: 'form'; at: number; value: string };

const spoil: fc.Arbitrary<Spoil> = fc.oneof(
  { arbitrary: fc.record({ part: fc.constant('body' as const), at: fc.nat(), json: hostileJson }), weight: 4 },
  { arbitrary: fc.record({ part: fc.constant('query' as const), name: fc.nat(), value: hostileQueryValue }), weight: 2 },
  { arbitrary: fc.record({ part: fc.constant('param' as const), at: fc.nat(), value: hostileParam }), weight: 2 },
  { arbitrary: fc.record({ part: fc.constant('credentials' as const), header: hostileBasic }), weight: 1 },
  { arbitrary: fc.record({ part: fc.constant('form' as const), at: fc.nat(), value: fc.oneof(hostileText, fc.constantFrom(...BAD_ENCODINGS)) }), weight: 1 },
);

// ---------------------------------------------------------------------------------------------
// Requests

const MARK = '"__FUZZ_HOSTILE__"';

/** Every path into `body` where a value can go: each existing key, and a new key in each object. */
function slots(value: Json, path: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push([...path, i], ...slots(v, [...path, i])));
  else if (value && typeof value === 'object') {
    out.push([...path, 'fuzz_extra']);
    for (const [k, v] of Object.entries(value)) out.push([...path, k], ...slots(v, [...path, k]));
  }
  return out;
}

function withMark(body: Record<string, Json>, at: number): Record<string, Json> {
  const copy = structuredClone(body);
  const all = slots(copy);
  const slot = all[at % all.length]!;
  let target = copy as Json;
  for (const key of slot.slice(0, -1)) target = (target as Record<string, Json>)[key as string]!;
  (target as Record<string | number, Json>)[slot[slot.length - 1]!] = '__FUZZ_HOSTILE__';
  return copy;
}

/** `a=1&b=2` with the values percent-encoded as a browser does (hostile values go in raw). */
function formText(body: Record<string, Json>, raw?: { key: string; value: string }): string {
  const parts = Object.entries(body).map(([k, v]) => `${encodeURIComponent(k)}=${k === raw?.key ? raw.value : encodeURIComponent(String(v))}`);
  return parts.join('&');
}

interface Built {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  what: string;
}

function credentials(op: Operation): Record<string, string> {
  switch (op.auth) {
    case 'bearer':
      return { authorization: `Bearer ${a.token}` };
    case 'key':
      return { authorization: basic(a.merchant.api_key, a.merchant.api_secret) };
    case 'dashboard':
      return { authorization: a.dashboard };
    case 'session':
      return { cookie: sessionCookie };
    case 'shopper':
      return { cookie: shopperCookie };
    case 'none':
      return {};
  }
}

/** `?a=1&b=2` from values already in URL form (empty when there are none). */
const queryText = (query: Record<string, string>) => {
  const text = Object.entries(query)
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return text ? `?${text}` : '';
};

function build(op: Operation, s: Spoil): Built {
  const names = paramNames(op.path);
  let url = fillPath(op.path, (n) => params[n] ?? 'x');
  const query = { ...op.baseQuery };
  const headers: Record<string, string> = { ...credentials(op) };
  let payload: string | undefined;
  let what: string;
  if (op.body) {
    headers['content-type'] = op.form ? 'application/x-www-form-urlencoded' : 'application/json';
    payload = op.form ? formText(op.body) : JSON.stringify(op.body);
  }
  switch (s.part) {
    case 'body':
    case 'form': {
      if (!op.body) {
        // A route without a body still gets one.
        headers['content-type'] = 'application/json';
        payload = s.part === 'body' ? s.json : JSON.stringify({ x: s.value });
      } else if (op.form) {
        const keys = Object.keys(op.body);
        const key = keys[s.at % keys.length]!;
        const value = s.part === 'form' ? (/%/.test(s.value) ? s.value : encodeURIComponent(s.value.replace(/[\ud800-\udfff]/g, '\u0000'))) : '%00';
        payload = formText(op.body, { key, value });
      } else {
        const text = JSON.stringify(withMark(op.body, s.at));
        payload = text.replace(MARK, s.part === 'body' ? s.json : JSON.stringify(s.value));
      }
      what = `body ${(payload ?? '').slice(0, 120)}`;
      break;
    }
    case 'query': {
      const name = op.query.length > 0 ? op.query[s.name % op.query.length]! : 'q';
      query[name] = s.value;
      what = `query ${name}=${s.value.slice(0, 80)}`;
      break;
    }
    case 'param': {
      if (names.length === 0) {
        url += `/${s.value}`;
      } else {
        const name = names[s.at % names.length]!;
        url = fillPath(op.path, (n) => (n === name ? s.value : (params[n] ?? 'x')));
      }
      what = `path ${url.slice(0, 120)}`;
      break;
    }
    case 'credentials':
      headers.authorization = s.header;
      what = `authorization ${s.header}`;
      break;
  }
  return { method: op.method, url: url + queryText(query), headers, payload, what };
}

let ipSeq = 0;
function send(b: Built): Promise<LightMyRequestResponse> {
  // Each request from its own address, so that the failure throttles do not turn every later
  // case of a route into the same 429.
  const n = ++ipSeq;
  return app.server.inject({ method: b.method as 'GET', url: b.url, headers: b.headers, payload: b.payload, remoteAddress: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` });
}

/** The refusal is in the family's documented error format (docs/api-conventions.md). */
function expectDocumentedError(res: LightMyRequestResponse, family: Operation['family'], label: string): void {
  expect(res.headers['x-request-id'], `${label}: x-request-id`).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
  if (res.statusCode < 400) return;
  const type = String(res.headers['content-type'] ?? '');
  if (family === 'page' && /^text\/(html|plain)/.test(type)) return; // the page's own error page
  expect(type, `${label}: content-type`).toMatch(/^application\/json/);
  if (res.raw.req.method === 'HEAD') return; // its GET's headers, no body
  const body = res.json() as Record<string, unknown>;
  if (family === 'oauth') {
    expect(body, label).toEqual({ error: expect.any(String), error_description: expect.any(String) });
  } else if (family === 'v1') {
    expect(body, label).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
  } else {
    expect(body, label).toEqual({ error: { app_error: expect.any(String), debug: expect.any(String), info: expect.any(String) } });
  }
}

/** Row count of every table, and the sandbox clock: what "nothing changed" compares. */
async function snapshot(): Promise<Record<string, unknown>> {
  // One round trip: this runs twice a case.
  const { rows } = await app.services.db.query(`SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t}) AS "${t}"`).join(', ')}`);
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k, Number(v)]));
  // The sandbox clock's offset from wall time (it only moves forward, by whole seconds or more).
  out.clock_offset_s = Math.round((app.services.clock.now().getTime() - Date.now()) / 10_000) * 10 || 0; // never -0
  return out;
}

beforeAll(async () => {
  // A database of its own: the "nothing changed" counts must see only this file's requests.
  iso = await isolatedDatabase();
  app = await startTestApp(NO_JOB_POLL, { db: iso.open(), delivery: TEST_DELIVERY });
  [a] = await twoMerchants(app);
  // About a thousand cases carry the merchant's Basic credentials: at the product's scrypt cost
  // their hashing was most of this file's time.
  await cheapDashboardPassword(app, a);
  const created = await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }));
  expect(created.statusCode).toBe(201);
  const purchase = (created.json() as { id: string }).id;
  const paid = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json() as { id: string };
  const led = await a.post(`/api/sandbox/purchases/pur_${paid.id}/pay`, { card_number: CARD, pledgers: [{ email: 'ann@example.com', amount_cents: 3_000 }] });
  expect(led.statusCode).toBe(200);
  const pledge = (led.json() as { pledges: { id: string }[] }).pledges[0]!.id;
  const payment = (await app.services.db.query<{ id: string }>('SELECT id FROM payments WHERE purchase_id = $1 ORDER BY created_at LIMIT 1', [paid.id])).rows[0]!.id;
  sessionCookie = (await signIn(app, a.merchant)).cookie;
  // The leader of both purchases (minimalPurchase's client), signed in to the space.
  shopperCookie = `chipin_space=${(await shopperSessions(app.services).create({ kind: 'email', value: 'leader@example.com' })).token}`;
  params = {
    id: purchase,
    purchase_uid: `pur_${purchase}`,
    merchant_uid: a.offer('INSTALLMENTS', 3),
    pledge_id: pledge,
    pledge_uid: pledge,
    delivery_id: 'dlv_00000000-0000-4000-8000-000000000000',
    transaction_id: 'sbx_txn_00000000-0000-4000-8000-000000000000',
    token: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    psa_id: 'psa_00000000-0000-4000-8000-000000000000',
    dispute_id: 'dsp_00000000-0000-4000-8000-000000000000',
    api_key: 'key_00000000-0000-4000-8000-000000000000',
    action: 'revoke',
    installment_id: '00000000-0000-4000-8000-000000000000',
    // Another purchase's payment: the space's and the pages' returns answer it 404.
    payment_id: payment,
    '*': 'index.css',
  };

  const doc = (await app.server.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
    paths: Record<
      string,
      Record<
        string,
        { security?: Record<string, unknown>[]; parameters?: { in: string; name: string }[]; requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }
      >
    >;
  };
  operations = [];
  for (const [openapiPath, methods] of Object.entries(doc.paths)) {
    const path = openapiPath.replace(/\{([^}]+)\}/g, ':$1');
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const key = `${method.toUpperCase()} ${path}`;
      const content = op.requestBody?.content ?? {};
      const form = 'application/x-www-form-urlencoded' in content;
      const schema = (content['application/json'] ?? content['application/x-www-form-urlencoded'])?.schema;
      const security = Object.keys(op.security?.[0] ?? {})[0];
      operations.push({
        method: method.toUpperCase(),
        path,
        family: familyOf(path),
        auth: security === 'bearerToken' ? 'bearer' : security === 'apiKeyBasic' ? (path === '/api/token' ? 'key' : 'dashboard') : 'none',
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        baseQuery: {},
        body: GOOD_BODIES[key] ?? (schema ? (sample(schema) as Record<string, Json>) : undefined),
        form,
      });
    }
  }
  // Every other route (the hosted pages, the space, the back office, documents and probes, hidden
  // from the API document), from the server's own route table. A HEAD route is Fastify's twin of
  // its GET, the same handler: fuzzed as that GET.
  const documented = new Set(operations.map((o) => `${o.method} ${o.path}`));
  const gets = new Set(registeredRoutes(app.server).flatMap((r) => (r.method === 'GET' ? [r.url] : [])));
  for (const r of registeredRoutes(app.server)) {
    const key = `${r.method} ${r.url}`;
    if (documented.has(key) || (r.method === 'HEAD' && gets.has(r.url))) continue;
    const page = !r.url.startsWith('/api/');
    const withBody = !['GET', 'HEAD', 'OPTIONS', 'DELETE'].includes(r.method);
    operations.push({
      method: r.method,
      path: r.url,
      family: familyOf(r.url),
      auth: r.url === '/sandbox/inbox' ? 'dashboard' : r.url.startsWith('/dashboard') ? 'session' : /^\/space(\/|$)/.test(r.url) ? 'shopper' : 'none',
      query: PAGE_QUERIES[r.url] ?? [],
      // A return needs its payment to reach its handler: another purchase's, answered 404.
      baseQuery: r.url.endsWith('/return') ? { payment } : {},
      body: withBody ? (GOOD_BODIES[key] ?? (page ? { csrf: 'x', answer: 'ok' } : {})) : undefined,
      form: withBody && page,
    });
  }

  const { rows } = await app.services.db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  // Every table but the credential throttle's: a refused credential attempt is counted there on
  // purpose (docs/security.md, "Throttles"), and that count is what a refusal must change.
  tables = rows.map((r) => r.table_name).filter((t) => t !== 'auth_throttle');
  expect(tables).toEqual(expect.arrayContaining(['purchases', 'payments', 'purchase_events']));
}, 120_000);

afterAll(async () => {
  await app?.close();
  await iso?.dispose();
});

describe('hostile input on every route', () => {
  it('enumerates the API document and every other route of the route table (a HEAD as its GET)', () => {
    const fuzzed = new Set(operations.map((o) => `${o.method} ${o.path}`));
    const left = registeredRoutes(app.server).filter((r) => !fuzzed.has(`${r.method} ${r.url}`) && !(r.method === 'HEAD' && fuzzed.has(`GET ${r.url}`)));
    expect(left.map((r) => `${r.method} ${r.url}`)).toEqual([]);
    expect(operations.length).toBeGreaterThanOrEqual(150);
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining([
        'POST /api/token',
        'POST /api/merchants/v1/purchases',
        'POST /api/merchants/:merchant_uid/purchase_link',
        'GET /pay/:purchase_uid',
        'POST /pledge/:pledge_uid',
        'GET /dashboard/purchases',
        'POST /dashboard/purchases/:id/refund',
        'GET /psp-challenge',
        'POST /space/sign-in',
        'GET /space/sign-in/link/:token',
        'GET /pay/:purchase_uid/return',
        'GET /pledge/:pledge_uid/return',
        'GET /space/purchases/:purchase_uid/payments/:payment_id/return',
        'GET /sandbox-psp/challenge/:transaction_id',
        'GET /docs/static/*',
        'GET /metrics',
      ]),
    );
  });

  it(`answers every generated case below 500, in the documented format, changing nothing (${RUNS} cases a route, seed ${SEED})`, async () => {
    let refused = 0;
    let cases = 0;
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(spoil, async (s) => {
          const b = build(op, s);
          const before = await snapshot();
          const res = await send(b);
          const label = `${op.method} ${op.path} with ${b.what} → ${res.statusCode} ${res.body.slice(0, 300)}`;
          if (op.method !== 'GET') cases++;
          expect(res.statusCode, label).toBeLessThan(500);
          expectDocumentedError(res, familyOf(b.url.split('?')[0]!), label);
          // A refusal changes nothing. (Some spoils leave a request valid, say an unknown key
          // the Token API ignores holding `null`: those may act, as any valid request does.)
          // FUZZ_LOG=1 lists the cases a route accepted, to review what the generators reach.
          if (res.statusCode < 400 && process.env.FUZZ_LOG) console.log('accepted', label.slice(0, 200));
          if (res.statusCode >= 400) {
            if (op.method !== 'GET') refused++;
            expect(await snapshot(), `${label}: a refusal changed the data`).toEqual(before);
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    }
    // The generators produce hostile input: almost every case that writes must be refused (GET
    // routes ignore a body and unknown query parameters, and may rightly answer 200).
    expect(refused / cases).toBeGreaterThan(0.8);
  }, 300_000);

  it(`gives ${FULL_RUN ? 'every path and query parameter of every route' : 'each path and query parameter name, once per route family and caller kind,'} each hostile id (36 dashes, 36 × f, over-long, non-ASCII, ../, percent-encoded): never a 5xx`, async () => {
    let sent = 0;
    let slots = 0;
    const walked = new Set<string>();
    for (const op of operations) {
      const spoils = [
        ...paramNames(op.path).map((name, at) => ({ name, part: 'param', make: (value: string): Spoil => ({ part: 'param', at, value }) })),
        ...op.query.map((name, at) => ({ name, part: 'query', make: (value: string): Spoil => ({ part: 'query', name: at, value }) })),
      ].filter(({ name, part }) => {
        // Outside a full run, a parameter name a route of the same family and caller kind already had is not walked again.
        const slot = `${op.family} ${op.auth} ${op.method === 'GET' ? 'read' : 'write'} ${part} ${name}`;
        if (!FULL_RUN && walked.has(slot)) return false;
        walked.add(slot);
        return true;
      });
      for (const { name, make } of spoils) {
        slots++;
        const before = await snapshot();
        let refusedAll = true;
        for (const value of hostileIds(params[name] ?? op.baseQuery[name])) {
          const b = build(op, make(value));
          const res = await send(b);
          sent++;
          const label = `${op.method} ${op.path} with ${b.what} → ${res.statusCode} ${res.body.slice(0, 300)}`;
          expect(res.statusCode, label).toBeLessThan(500);
          expectDocumentedError(res, familyOf(b.url.split('?')[0]!), label);
          if (res.statusCode < 400) refusedAll = false;
        }
        // Refused every time: nothing changed. (A percent-encoded valid id is the valid request,
        // which may act.)
        if (refusedAll) expect(await snapshot(), `${op.method} ${op.path}, ${name}: a refusal changed the data`).toEqual(before);
      }
    }
    expect(slots).toBeGreaterThan(FULL_RUN ? 150 : 60);
    expect(sent).toBeGreaterThan(FULL_RUN ? 2_000 : 700);
  }, 300_000);
});
