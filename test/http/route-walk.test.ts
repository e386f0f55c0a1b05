/**
 * Every registered route, under encoded spellings of its path, for every kind of caller: the
 * answer is the canonical path's, or a refusal (docs/security.md#the-one-path-rule).
 *
 * The routes come from the server's own registry (`registeredRoutes`); each is called on its
 * canonical path, then on variants:
 *
 * - spellings the router decodes to the same route (each path segment's first character
 *   percent-encoded, upper- or lower-case hex; every `_`, `-` and `.`; a whole segment; a
 *   parameter's first character): the SAME answer as the canonical path, exactly, on every
 *   guarded route (a public route may also refuse them: there is nothing to let anyone past);
 * - spellings that are another path (`%2F` for a `/`, double encoding `%2574`, a trailing slash
 *   added or removed, an upper-case letter): the same answer, or a refusal (400, 404), never a
 *   different success.
 *
 * An answer is its status, where a redirect goes, and whether it is a role refusal (403 naming the
 * role): a support user refused by role on the canonical path and refused by a CSRF check on a
 * spelling would otherwise look alike. The callers: nobody, an API client (access token), a
 * support user, an admin and one of the operator's staff (the `operator` role) of the same account
 * (session cookie, with `X-CSRF-Token` for the back-office API). Page forms are posted without their CSRF
 * field, so that no action is carried out (the role rule runs before the CSRF check); path
 * parameters are well-formed ids of nothing, so that every lookup answers 404 alike.
 *
 * It then checks each route answers each caller as its recorded access says (`routeAccess`, the
 * table of docs/security.md): a guarded route refuses nobody, an admin route refuses support and
 * the operator by role, an operator route refuses support and admin by role, a staff route lets
 * every role in.
 *
 * The spellings walk one route of each family (its part of the route table, recorded access, guard,
 * method, and whether it has path parameters: what decides an answer) on every run, and every
 * route in `npm run test:full` (test/helpers/full-run.ts); the access check walks every route always.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredRoutes, type RegisteredRoute } from '../../src/http/server.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, signIn } from '../helpers/dashboard.ts';
import { FULL_RUN, onePerFamily } from '../helpers/full-run.ts';

type Who = 'nobody' | 'api client' | 'support' | 'admin' | 'operator';
const CALLERS: readonly Who[] = ['nobody', 'api client', 'support', 'admin', 'operator'];
const STAFF = ['support', 'admin', 'operator'] as const;

/** A well-formed id of nothing for each path parameter, and a real file for the Swagger UI's wildcard. */
const PARAMS: Record<string, string> = {
  id: '00000000-0000-4000-8000-000000000001',
  purchase_uid: 'pur_00000000-0000-4000-8000-000000000002',
  merchant_uid: 'mer_00000000-0000-4000-8000-000000000003',
  pledge_id: 'plg_00000000-0000-4000-8000-000000000004',
  pledge_uid: 'plg_00000000-0000-4000-8000-000000000004',
  delivery_id: 'dlv_00000000-0000-4000-8000-000000000005',
  psa_id: 'psa_00000000-0000-4000-8000-000000000006',
  api_key: 'key_000000000000400080000000000000007',
  action: 'revoke',
  transaction_id: 'sbx_00000000-0000-4000-8000-000000000008',
  token: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  installment_id: '00000000-0000-4000-8000-000000000009',
  payment_id: '00000000-0000-4000-8000-00000000000a',
  dispute_id: 'dsp_00000000-0000-4000-8000-00000000000b',
  payout_id: 'po_00000000-0000-4000-8000-00000000000c',
  export_id: 'pex_00000000-0000-4000-8000-00000000000d',
  '*': 'index.css',
};

type Segment = { text: string; param: boolean };

function segmentsOf(template: string): Segment[] {
  return template
    .split('/')
    .slice(1)
    .map((s) => {
      if (s === '*') return { text: PARAMS['*']!, param: true };
      if (!s.startsWith(':')) return { text: s, param: false };
      const value = PARAMS[s.slice(1)];
      if (value === undefined) throw new Error(`no sample value for path parameter ${s} (add one to PARAMS)`);
      return { text: value, param: true };
    });
}

const pathOf = (segments: readonly string[]) => `/${segments.join('/')}`;
const hex = (c: string, lower = false) => {
  const h = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${lower ? h.toLowerCase() : h.toUpperCase()}`;
};

interface Variant {
  path: string;
  how: string;
  /** The router decodes it to the canonical path: the answer must be the same, exactly. */
  same: boolean;
}

function variantsOf(template: string): { canonical: string; variants: Variant[] } {
  const segs = segmentsOf(template);
  const texts = segs.map((s) => s.text);
  const canonical = pathOf(texts);
  const out: Variant[] = [];
  const withSegment = (i: number, text: string) => pathOf(texts.map((t, j) => (j === i ? text : t)));
  const statics = segs.map((s, i) => ({ ...s, i })).filter((s) => !s.param && s.text !== '');
  for (const s of statics) {
    out.push({ path: withSegment(s.i, hex(s.text[0]!) + s.text.slice(1)), how: `first letter of "${s.text}" encoded`, same: true });
    for (let k = 0; k < s.text.length; k++) {
      const c = s.text[k]!;
      if ('_-.'.includes(c)) out.push({ path: withSegment(s.i, s.text.slice(0, k) + hex(c) + s.text.slice(k + 1)), how: `"${c}" of "${s.text}" encoded`, same: true });
    }
    out.push({ path: withSegment(s.i, `%25${hex(s.text[0]!).slice(1)}${s.text.slice(1)}`), how: `first letter of "${s.text}" double-encoded`, same: false });
    if (/[a-z]/.test(s.text[0]!)) out.push({ path: withSegment(s.i, s.text[0]!.toUpperCase() + s.text.slice(1)), how: `"${s.text}" capitalised`, same: false });
  }
  const last = statics.at(-1);
  if (last) {
    out.push({ path: withSegment(last.i, hex(last.text[0]!, true) + last.text.slice(1)), how: `first letter of "${last.text}" encoded in lower-case hex`, same: true });
    out.push({ path: withSegment(last.i, [...last.text].map((c) => hex(c)).join('')), how: `every letter of "${last.text}" encoded`, same: true });
  }
  for (const [i, s] of segs.entries()) {
    if (s.param && s.text !== '') out.push({ path: withSegment(i, hex(s.text[0]!) + s.text.slice(1)), how: `first letter of parameter ${s.text} encoded`, same: true });
  }
  for (let i = 1; i < texts.length; i++) {
    out.push({ path: `/${texts.slice(0, i).join('/')}%2F${texts.slice(i).join('/')}`, how: `"/" before segment ${i + 1} as %2F`, same: false });
  }
  if (canonical.endsWith('/')) out.push({ path: canonical.slice(0, -1), how: 'without its trailing slash', same: false });
  else out.push({ path: `${canonical}/`, how: 'with a trailing slash', same: false });
  return { canonical, variants: out };
}

let app: TestApp;
let a: Caller;
let sessions: Record<(typeof STAFF)[number], { cookie: string; csrf: string }>;
let routes: readonly RegisteredRoute[];
let seq = 0;

beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
  sessions = {
    support: await signIn(app, await addDashboardUser(app, a.accountId, 'support')),
    admin: await signIn(app, a.merchant),
    operator: await signIn(app, await addDashboardUser(app, a.accountId, 'operator')),
  };
  routes = registeredRoutes(app.server);
});
afterAll(async () => {
  await app?.close();
});

function call(route: RegisteredRoute, path: string, who: Who): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = {};
  if (who === 'api client') headers.authorization = `Bearer ${a.token}`;
  if (who === 'support' || who === 'admin' || who === 'operator') {
    headers.cookie = sessions[who].cookie;
    headers['x-csrf-token'] = sessions[who].csrf;
  }
  const withBody = !['GET', 'HEAD', 'OPTIONS'].includes(route.method);
  const json = route.url.startsWith('/api/') && route.url !== '/api/token';
  if (withBody) headers['content-type'] = json ? 'application/json' : 'application/x-www-form-urlencoded';
  // Each call from an address of its own: the per-address budgets (token, sign-in, simulation)
  // must not turn a later variant into a 429.
  seq += 1;
  return app.server.inject({
    method: route.method as 'GET',
    url: path,
    headers,
    payload: withBody ? (json ? '{}' : '') : undefined,
    remoteAddress: `10.${(seq >> 16) & 255}.${(seq >> 8) & 255}.${seq & 255}`,
  });
}

const ROLE_REFUSAL = /may not use this|does not give access to this page/;

/** What a caller was told, as far as a decision goes (a redirect's target decoded: `/%64ocs/` is `/docs/`). */
function answerOf(route: RegisteredRoute, res: LightMyRequestResponse): string {
  const location = res.headers.location === undefined ? '' : ` → ${decodeURI(String(res.headers.location).split('?')[0]!)}`;
  const byRole = res.statusCode === 403 && (route.method === 'HEAD' || ROLE_REFUSAL.test(res.body)) ? ' (role)' : '';
  return `${res.statusCode}${location}${byRole}`;
}

/**
 * A refusal: 400 or 404; or a redirect to the very path asked, which serves nothing (the Swagger
 * UI plugin's `/docs/static/index.html` redirects to `/docs/` by rewriting the URL as sent, and
 * sends an encoded spelling back to itself). A guarded route may answer a spelling the router
 * decodes to it only as it answers the plain path; a public one (nothing to let anyone past) may
 * also refuse it.
 */
function refusal(res: LightMyRequestResponse, path: string): boolean {
  return res.statusCode === 400 || res.statusCode === 404 || (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location === path);
}
const signedOut = (answer: string) => answer.startsWith('401') || answer === '303 → /dashboard/sign-in' || answer === '303 → /space/sign-in';

describe('every registered route under encoded spellings of its path', () => {
  // One test per part of the route table, each well inside the test time limit on a loaded
  // machine; the last takes every route the others do not, so together they walk them all.
  // The first part a route's path falls under takes it: '/api' takes the /api routes the three
  // before it do not.
  const PARTS = ['/dashboard', '/api/backoffice', '/api/merchants', '/api/sandbox', '/api', '/space', ''] as const;
  const partOf = (url: string) => PARTS.find((p) => p !== '' && (url === p || url.startsWith(`${p}/`))) ?? '';
  let calls = 0;
  for (const part of PARTS) {
    it(`answers every caller as on the canonical path, or refuses: ${part || 'every other route'}`, async () => {
      const wrong: string[] = [];
      const family = (r: RegisteredRoute) => [r.access.who, r.auth, r.method, r.url.includes(':') || r.url.includes('*')].join(' ');
      for (const route of onePerFamily(
        routes.filter((r) => partOf(r.url) === part),
        family,
      )) {
        const { canonical, variants } = variantsOf(route.url);
        for (const who of CALLERS) {
          const expected = answerOf(route, await call(route, canonical, who));
          for (const v of variants) {
            const res = await call(route, v.path, who);
            const got = answerOf(route, res);
            calls += 1;
            const ok = got === expected || ((!v.same || route.access.who === 'anyone') && refusal(res, v.path));
            if (!ok) wrong.push(`${route.method} ${route.url} as ${who}, ${v.how} (${v.path}): ${got}, canonical ${expected}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it(`walked ${FULL_RUN ? 'every registered route, more than 10,000 spellings' : 'a route of each family, more than 2,000 spellings'} in all`, () => {
    expect(routes.length).toBeGreaterThan(80);
    expect(calls).toBeGreaterThan(FULL_RUN ? 10_000 : 2_000);
  });

  it("answers each caller on the canonical path as the route's recorded access says (docs/security.md's table)", async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      const { canonical } = variantsOf(route.url);
      const answers = Object.fromEntries(await Promise.all(CALLERS.map(async (who) => [who, answerOf(route, await call(route, canonical, who))] as const))) as Record<Who, string>;
      const key = `${route.method} ${route.url} (${route.access.who})`;
      const check = (ok: boolean, what: string) => ok || wrong.push(`${key}: ${what}: ${JSON.stringify(answers)}`);
      switch (route.access.who) {
        case 'anyone':
          check(!CALLERS.some((w) => answers[w].endsWith('(role)')), 'nobody is refused by role');
          break;
        case 'api_key':
          check(signedOut(answers.nobody), 'nobody is refused');
          check(!signedOut(answers['api client']), 'an API client is let in');
          check(
            STAFF.every((w) => signedOut(answers[w])),
            'a back-office session is not an access token',
          );
          break;
        case 'staff':
          check(signedOut(answers.nobody), 'nobody is refused');
          for (const w of STAFF) check(!signedOut(answers[w]) && !answers[w].endsWith('(role)'), `${w} is let in`);
          break;
        case 'shopper':
          // None of these callers is a signed-in shopper: a back-office session or a token opens no shopper's space.
          for (const w of CALLERS) check(signedOut(answers[w]), `${w} is sent to the space's sign-in`);
          break;
        case 'admin':
          check(signedOut(answers.nobody), 'nobody is refused');
          for (const w of ['support', 'operator'] as const) check(answers[w].startsWith('403') && answers[w].endsWith('(role)'), `${w} is refused by role`);
          check(!signedOut(answers.admin) && !answers.admin.endsWith('(role)'), 'admin is let in');
          break;
        case 'operator':
          check(signedOut(answers.nobody), 'nobody is refused');
          for (const w of ['support', 'admin'] as const) check(answers[w].startsWith('403') && answers[w].endsWith('(role)'), `${w} is refused by role`);
          check(!signedOut(answers.operator) && !answers.operator.endsWith('(role)'), 'the operator is let in');
          break;
      }
    }
    expect(wrong).toEqual([]);
  });
});
