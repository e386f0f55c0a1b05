/**
 * How far a request travels through the source on its way to the PSP (docs/architecture.md#one-flow-from-route-to-repository):
 * the leader's payment into Stripe and a Merchant API v1 refund into Adyen, each followed from its
 * route to the connector's HTTP request. Every request the connector sends to its PSP's fake
 * records the stack that sent it (async frames included: the awaits that led there); the files
 * of src/ on those stacks are the path, and a step from one file to the next whose layer is
 * higher (a use case calling back into a route's module, a repository into a use case) is a
 * step back up the layers. Bounds of issue 74: at most 15 files and 10 steps back up for the
 * leader, at most 12 files for the refund. `CALL_PATH_PRINT=1` prints the lists.
 */
import http from 'node:http';
import { Session } from 'node:inspector';
import { syncBuiltinESMExports } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '../../src/domain/ids.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { BACK_MODE_PSPS, type FakePsp } from '../psp/fixtures/back-mode-psps.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Layers from the top (docs/architecture.md#layers): a step to a lower number is a step back up. */
function layer(file: string): number {
  if (/^(http|pages|app\.ts|main\.ts|cli)\b/.test(file)) return 0;
  if (file.startsWith('use-cases/')) return 1;
  if (file.startsWith('money/')) return 2;
  if (file.endsWith('-repository.ts')) return 4;
  if (file.startsWith('db/')) return 5;
  if (/^(domain|i18n|html)\//.test(file)) return 6;
  return 3; // psp/, outbound/, messaging/, jobs/, delivery/ …: what use cases call
}

/** The files of src/ on a stack, outermost first, each run of frames in one file counted once. */
function pathOf(stack: string): string[] {
  const files = [...stack.matchAll(/\(?(\/[^():]+\.ts):\d+:\d+\)?/g)].map((m) => m[1]!).filter((f) => f.startsWith(SRC));
  const path: string[] = [];
  for (const file of files.reverse().map((f) => f.slice(SRC.length))) if (path.at(-1) !== file) path.push(file);
  return path;
}

interface Travelled {
  /** The files from the route to the connector's module. */
  files: string[];
  backUp: string[];
  /** The connector's files below its module, to the HTTP request. */
  below: string[];
  /** Every file of src/ that ran code for the request (repositories, rules, rendering included). */
  entered: string[];
}

/**
 * Runs `request` and answers the files and steps back up of every stack that called the app's
 * connectors, with those of the connector's requests to its PSP at `port`.
 */
async function travelled(app: TestApp, port: number, request: () => Promise<void>): Promise<Travelled> {
  const stacks: string[] = [];
  const inside: string[] = [];
  let entered: string[] | undefined;
  // Our side: every call of a connector the registry hands out, read in the caller's turn (the
  // awaits that led there are async frames of the stack). A PSP's SDK may cut the async chain
  // before its HTTP request, so the connector's own side is read where its request starts
  // (node:http's request, which the outbound client and the SDKs call).
  const payments = app.services.payments;
  const registry = payments.psps;
  const watched = <T extends object>(connector: T): T =>
    new Proxy(connector, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          // The connector's own module is the innermost frame of the caller's stack (below it, its SDK may lose the async chain).
          stacks.push((new Error().stack ?? '').replace(/^Error.*\n/, `Error\n    at ${SRC}psp/${(target as { name?: string }).name}/connector.ts:1:1\n`));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  payments.psps = {
    ...registry,
    definition: (name) => registry.definition(name),
    forOffer: async (offer) => watched(await registry.forOffer(offer)),
    forPayment: async (payment) => watched(await registry.forPayment(payment)),
  };
  const original = http.request;
  http.request = ((...args: Parameters<typeof http.request>) => {
    const options = args.find((a): a is http.RequestOptions => typeof a === 'object' && a !== null && !(a instanceof URL));
    const url = args.find((a): a is string | URL => typeof a === 'string' || a instanceof URL);
    if (Number(options?.port ?? (url ? new URL(url).port : 0)) === port) inside.push(new Error().stack ?? '');
    return original(...args);
  }) as typeof http.request;
  syncBuiltinESMExports();
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 200;
  // Every file of src/ whose code ran for the request (V8's precise coverage), printed beside the
  // path: only when printing, since counting every call slows the whole request down.
  const session = process.env.CALL_PATH_PRINT ? new Session() : undefined;
  session?.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => (session ? session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))) : resolve(undefined)));
  await post('Profiler.enable');
  await post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await post('Profiler.takePreciseCoverage'); // from here on
  try {
    await request();
    const coverage = (await post('Profiler.takePreciseCoverage')) as { result: { url: string; functions: { ranges: { count: number }[] }[] }[] } | undefined;
    entered = (coverage?.result ?? [])
      .filter((r) => r.url.includes('/src/') && r.functions.some((f) => f.ranges[0]!.count > 0))
      .map((r) => r.url.slice(r.url.indexOf('/src/') + 5).replace(/\?.*$/, ''));
  } finally {
    await post('Profiler.stopPreciseCoverage').catch(() => undefined);
    session?.disconnect();
    payments.psps = registry;
    http.request = original;
    syncBuiltinESMExports();
    Error.stackTraceLimit = limit;
  }
  expect(stacks.length).toBeGreaterThan(0);
  if (process.env.CALL_PATH_DEBUG) console.log(stacks.join('\n\n'));
  const files = new Set<string>();
  const steps = new Set<string>();
  for (const path of stacks.map(pathOf)) {
    path.forEach((f) => files.add(f));
    for (let i = 1; i < path.length; i++) if (layer(path[i]!) < layer(path[i - 1]!)) steps.add(`${path[i - 1]} → ${path[i]}`);
  }
  // Below the connector's module: its SDK or kit down to the HTTP request, for the record.
  const below = [...new Set(inside.flatMap(pathOf))].filter((f) => !files.has(f)).sort();
  const result = { files: [...files].sort(), backUp: [...steps].sort(), below, entered: [...new Set(entered ?? [])].sort() };
  if (process.env.CALL_PATH_PRINT) console.log(JSON.stringify(result, null, 2));
  return result;
}

describe('the path of a request to its PSP, through the source', () => {
  let db: IsolatedDatabase;
  let app: TestApp;
  const fakes: FakePsp[] = [];
  let m: Caller;

  beforeAll(async () => {
    db = await isolatedDatabase();
    app = await startTestApp({}, { db: db.open() });
    m = await caller(app);
  });
  afterAll(async () => {
    for (const fake of fakes) await fake.close();
    await app?.close();
    await db?.dispose();
  });

  /** An offer of `type` bound to a new account of `psp` on its fake; the fake's port. */
  async function bind(psp: string, offer: string): Promise<{ fake: FakePsp; port: number }> {
    const fake = await BACK_MODE_PSPS[psp]!();
    fakes.push(fake);
    const created = await m.post(
      '/api/backoffice/psp_accounts',
      { psp, environment: 'test', label: psp, credentials: fake.credentials, endpoint_url: fake.endpointUrl },
      { authorization: m.dashboard },
    );
    expect(created.statusCode, created.body).toBe(201);
    const bound = await app.server.inject({
      method: 'PATCH',
      url: `/api/backoffice/offers/${offer}`,
      headers: { authorization: m.dashboard, 'content-type': 'application/json' },
      payload: JSON.stringify({ psp_account_id: created.json().id }),
    });
    expect(bound.statusCode, bound.body).toBe(200);
    return { fake, port: Number(new URL(fake.endpointUrl).port) };
  }

  async function purchase(offer: string, amountCents: number): Promise<string> {
    const res = await m.post(`/api/merchants/${offer}/purchase_link`, {
      data: { title: 'Lisbon', amountCents, email: 'leader@example.com', reference: `r-${amountCents}` },
      purchase_link_settings: {},
    });
    expect(res.statusCode, res.body).toBe(200);
    return parsePublicId('pur', (res.json() as { purchase_uid: string }).purchase_uid)!;
  }

  it("the leader's payment of a pot into Stripe passes through at most 15 files and steps back up at most 10 times", async () => {
    const offer = m.offer('SHARED');
    const { fake, port } = await bind('stripe', offer);
    const id = await purchase(offer, 10_000);
    const path = await travelled(app, port, async () => {
      const paid = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: fake.card, pledgers: [{ email: 'ann@example.com', amount_cents: 4_000 }] });
      expect(paid.statusCode, paid.body).toBe(200);
    });
    expect(path.files).toContain('use-cases/checkout/pay-as-leader.ts');
    expect(path.files.length, path.files.join('\n')).toBeLessThanOrEqual(15);
    expect(path.backUp.length, path.backUp.join('\n')).toBeLessThanOrEqual(10);
  });

  it('a v1 refund into Adyen passes through at most 12 files', async () => {
    // A pot the leader paid alone: the whole amount captured on the leader's card, so the refund goes to the PSP.
    const offer = m.offer('SHARED');
    const { fake, port } = await bind('adyen', offer);
    const id = await purchase(offer, 30_000);
    const paid = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: fake.card });
    expect(paid.statusCode, paid.body).toBe(200);
    const path = await travelled(app, port, async () => {
      const refunded = await m.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: 5_000 });
      expect(refunded.statusCode, refunded.body).toBe(201);
    });
    expect(path.files).toContain('use-cases/refunds/refund-purchase.ts');
    expect(path.files.length, path.files.join('\n')).toBeLessThanOrEqual(12);
  });
});
