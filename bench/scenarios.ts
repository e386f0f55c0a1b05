/**
 * What the benchmark measures, in order. Add a scenario by adding an entry to {@link SCENARIOS};
 * a Chipin route that should be compared with a bare Fastify route names it in `baseline`
 * (add that route to bare-server.ts and its own entry here, with `server: 'bare'`).
 */
import type { Options } from 'autocannon';

export interface Credentials {
  api_key: string;
  api_secret: string;
  account_id?: string;
  [k: string]: unknown;
}

/** What a scenario's setup can use: both servers and the merchant the benchmark created. */
export interface BenchContext {
  bareUrl: string;
  chipinUrl: string;
  credentials: Credentials;
  /** A fresh access token for {@link credentials} (600 s lifetime). */
  accessToken(): Promise<string>;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Scenario extends RequestSpec {
  name: string;
  /** Which server answers it. */
  server: 'bare' | 'chipin';
  /** Status every request should get; checked once before the run (default 200). */
  expectStatus?: number;
  /** Runs once, right before the scenario; what it returns overrides the static request fields. */
  setup?: (ctx: BenchContext) => Promise<Partial<RequestSpec>>;
  /** Name of the scenario this one's throughput is compared with, and the target in percent. */
  baseline?: { scenario: string; targetPercent: number };
  /** Only with BENCH_DATABASE_URL: compares with a bare Fastify + pg route. */
  needsDatabase?: boolean;
  /** Extra autocannon options (e.g. `requests` for a body that changes per request). */
  autocannon?: Partial<Options>;
}

export const basicAuth = (c: Credentials): string => 'Basic ' + Buffer.from(`${encodeURIComponent(c.api_key)}:${encodeURIComponent(c.api_secret)}`).toString('base64');

export const SCENARIOS: Scenario[] = [
  {
    name: 'bare GET /bare',
    server: 'bare',
    method: 'GET',
    path: '/bare',
  },
  {
    name: 'GET /api/whoami (bearer)',
    server: 'chipin',
    method: 'GET',
    path: '/api/whoami',
    setup: async (ctx) => ({ headers: { authorization: `Bearer ${await ctx.accessToken()}` } }),
    baseline: { scenario: 'bare GET /bare', targetPercent: 70 },
  },
  {
    name: 'POST /api/token (basic)',
    server: 'chipin',
    method: 'POST',
    path: '/api/token',
    body: 'grant_type=client_credentials',
    setup: async (ctx) => ({
      headers: { authorization: basicAuth(ctx.credentials), 'content-type': 'application/x-www-form-urlencoded' },
    }),
    // A token costs one primary-key read of the key (and a hash check): compared with the bare
    // pg SELECT, which only exists with BENCH_DATABASE_URL (without it the row has no ratio).
    baseline: { scenario: 'bare GET /bare/purchases/:id (pg SELECT)', targetPercent: 50 },
  },
  {
    name: 'bare POST /bare/purchases (pg INSERT)',
    server: 'bare',
    method: 'POST',
    path: '/bare/purchases',
    expectStatus: 201,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Weekend in Lisbon', amount: 30000 }),
    needsDatabase: true,
  },
  {
    name: 'POST /api/merchants/v1/purchases',
    server: 'chipin',
    method: 'POST',
    path: '/api/merchants/v1/purchases',
    expectStatus: 201,
    body: JSON.stringify({ title: 'Weekend in Lisbon', amount: 30000, client: { email: 'leader@example.com' } }),
    setup: async (ctx) => ({ headers: { authorization: `Bearer ${await ctx.accessToken()}`, 'content-type': 'application/json' } }),
    baseline: { scenario: 'bare POST /bare/purchases (pg INSERT)', targetPercent: 50 },
    needsDatabase: true,
  },
  {
    name: 'bare GET /bare/purchases/:id (pg SELECT)',
    server: 'bare',
    method: 'GET',
    path: '/bare/purchases/:id',
    setup: async (ctx) => {
      const { id } = (await (await fetch(`${ctx.bareUrl}/bare/seed`)).json()) as { id: string };
      return { path: `/bare/purchases/${id}` };
    },
    needsDatabase: true,
  },
  {
    name: 'GET /api/merchants/v1/purchases/{id}',
    server: 'chipin',
    method: 'GET',
    path: '/api/merchants/v1/purchases/:id',
    setup: async (ctx) => {
      const token = await ctx.accessToken();
      const res = await fetch(`${ctx.chipinUrl}/api/merchants/v1/purchases`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Bench', amount: 30000, client: { email: 'leader@example.com' } }),
      });
      const { id } = (await res.json()) as { id: string };
      return { path: `/api/merchants/v1/purchases/${id}`, headers: { authorization: `Bearer ${token}` } };
    },
    baseline: { scenario: 'bare GET /bare/purchases/:id (pg SELECT)', targetPercent: 70 },
    needsDatabase: true,
  },
  {
    // Informative: the floor of any validated JSON POST on bare Fastify (no target compares with it).
    name: 'bare POST /bare/json (schema-validated body)',
    server: 'bare',
    method: 'POST',
    path: '/bare/json',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount_cents: 30000, created: '2026-01-31' }),
  },
  {
    name: 'POST public simulate_payment_schedule (3x)',
    server: 'chipin',
    method: 'POST',
    path: '/api/users/me/merchants/:uid/simulate_payment_schedule',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount_cents: 30000, created: '2026-01-31' }),
    setup: async (ctx) => {
      const offer = (ctx.credentials.offers as { merchant_uid: string; type: string; installments: number }[]).find((o) => o.type === 'INSTALLMENTS' && o.installments === 3)!;
      return { path: `/api/users/me/merchants/${offer.merchant_uid}/simulate_payment_schedule` };
    },
    baseline: { scenario: 'bare GET /bare', targetPercent: 50 },
  },
  {
    // The front end's eligibility call: the account's 4 offers, no shopper named, so no query (the
    // offers and the rules are per-process copies) and 3 schedules from the simulation's memo.
    name: 'POST public eligibility (4 offers, no shopper)',
    server: 'chipin',
    method: 'POST',
    path: '/api/users/me/merchants/:uid/eligibility',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 30000, created: '2026-01-31' }),
    setup: async (ctx) => {
      const offer = (ctx.credentials.offers as { merchant_uid: string }[])[0]!;
      return { path: `/api/users/me/merchants/${offer.merchant_uid}/eligibility` };
    },
    baseline: { scenario: 'POST public simulate_payment_schedule (3x)', targetPercent: 70 },
  },
  {
    // The same with a shopper named: one more statement, the shopper's history (docs/risk.md#the-history-query).
    // Not the create row's client: that one has every purchase the create row made (thousands), and
    // the history reads all of a shopper's purchases; a shopper with a handful is the usual case.
    name: 'POST /api/merchants/v1/eligibility (4 offers, shopper named)',
    server: 'chipin',
    method: 'POST',
    path: '/api/merchants/v1/eligibility',
    body: JSON.stringify({ amount: 30000, created: '2026-01-31', shopper: { email: 'shopper@example.com', phone: '+33612345678' } }),
    setup: async (ctx) => ({ headers: { authorization: `Bearer ${await ctx.accessToken()}`, 'content-type': 'application/json' } }),
    baseline: { scenario: 'POST public simulate_payment_schedule (3x)', targetPercent: 40 },
  },
  {
    // Informative, last so that it changes nothing for the rows before it: the bare GET with 25 µs
    // of work added. Its CPU per request minus the bare GET's, minus 25, is what waking the load
    // generator adds to a slower route on this host (docs/performance.md#what-limits-each-row).
    name: 'bare GET /bare/spin (+25 µs of work)',
    server: 'bare',
    method: 'GET',
    path: '/bare/spin',
  },
];
