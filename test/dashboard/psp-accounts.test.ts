import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { catalogueOf } from '../../src/psp/catalogue.ts';
import { DASHBOARD_TEXT } from '../../src/http/backoffice/texts.ts';
import { CREDENTIAL_HELP_FR } from '../../src/http/backoffice/credential-help.ts';
import { CONNECTOR_DEFINITIONS } from '../../src/psp/definitions.ts';
import { DEFAULT_PSP } from '../../src/psp/registry.ts';
import { html } from '../../src/html/html.ts';
import { form, signIn } from '../helpers/dashboard.ts';
import { SECRET_KEY, WEBHOOK_SECRET, stripeHarness, type StripeHarness } from '../psp/fixtures/stripe/harness.ts';

/** The back office's PSP accounts pages: list, add (from the connector's fields, checked with the PSP), an account's page (edit, check again), delete. */
let app: TestApp;
let a: Caller;
let b: Caller;
let sa: { cookie: string; csrf: string };
let sb: { cookie: string; csrf: string };
let stripe: StripeHarness;

beforeAll(async () => {
  stripe = await stripeHarness();
  app = await startTestApp({ logLevel: 'debug' });
  [a, b] = [await caller(app), await caller(app)];
  sa = await signIn(app, a.merchant);
  sb = await signIn(app, b.merchant);
});
afterAll(async () => {
  await app?.close();
  await stripe?.teardown();
});

const get = (url: string, s = sa) => app.server.inject({ method: 'GET', url, headers: { cookie: s.cookie } });
const post = (url: string, body: string, s = sa) =>
  app.server.inject({ method: 'POST', url, headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: body });
const accountsOf = async (c: Caller) =>
  (await app.server.inject({ method: 'GET', url: '/api/backoffice/psp_accounts', headers: { authorization: c.dashboard } })).json() as {
    id: string;
    label: string;
    credentials: Record<string, string>;
  }[];
const stripeForm = (over: Record<string, string> = {}, s = sa) =>
  form({
    csrf: s.csrf,
    psp: 'stripe',
    label: 'Main Stripe',
    environment: 'test',
    'credentials.secret_key': SECRET_KEY,
    'credentials.webhook_secret': WEBHOOK_SECRET,
    endpoint_url: stripe.account.baseUrl,
    verify: 'yes',
    ...over,
  });

describe('PSP accounts in the back office', () => {
  it('names the PSPs each connector reaches, and serves the whole catalogue with each route; the page lists them', async () => {
    const psps = (await app.server.inject({ method: 'GET', url: '/api/backoffice/psps', headers: { authorization: a.dashboard } })).json() as {
      name: string;
      reaches: string[];
      takes_notifications: boolean;
    }[];
    // The PSPs whose notifications Chipin cannot verify: no URL to set there.
    expect(
      psps
        .filter((p) => !p.takes_notifications)
        .map((p) => p.name)
        .sort(),
    ).toEqual(['centralpay', 'halyk', 'payline', 'sips']);
    expect(psps.find((p) => p.name === 'sips')!.reaches).toEqual(['Mercanet (BNP Paribas)', 'Sogenactif (Société Générale)', "Sherlock's (LCL)", 'Sips (Worldline)']);
    expect(psps.find((p) => p.name === 'sandbox')!.reaches).toEqual([]);
    const res = await app.server.inject({ method: 'GET', url: '/api/backoffice/psp_catalogue', headers: { authorization: a.dashboard } });
    expect(res.statusCode).toBe(200);
    const catalogue = res.json() as { name: string; route: string; connector: string | null; reason: string | null }[];
    expect(catalogue.find((e) => e.name === 'Sogecommerce')).toEqual({ name: 'Sogecommerce', route: 'direct', connector: 'lyra', reason: null });
    // Every route names a connector of this build, or says why there is none.
    const built = new Set(psps.map((p) => p.name));
    for (const e of catalogue) {
      if (e.route === 'not_yet') expect(e.reason, e.name).toBeTruthy();
      else expect(built.has(e.connector!), e.name).toBe(true);
    }
    const page = await app.server.inject({ method: 'GET', url: '/dashboard/psp-accounts', headers: { cookie: sa.cookie } });
    expect(page.body).toContain('Mercanet (BNP Paribas)');
    expect((await app.server.inject({ method: 'GET', url: '/api/backoffice/psp_catalogue' })).statusCode).toBe(401);
  });

  it("says why a PSP is not reached in the page's language, without Markdown", async () => {
    const fr = (await get('/dashboard/psp-accounts?lang=fr')).body;
    expect(fr).toContain('Pas encore accessibles');
    expect(fr).toContain('son API n’est pas celle du connecteur ogone');
    expect(fr).toContain('pas encore de connecteur, ni direct ni par Hyperswitch');
    const en = (await get('/dashboard/psp-accounts?lang=en')).body;
    expect(en).toContain('its API is not the one of the ogone connector');
    for (const body of [fr, en]) expect(body).not.toMatch(/<li>[^<]*<span class="muted"[^>]*>[^<]*`/);
    // Every reason of the catalogue has its words in both languages.
    for (const e of catalogueOf(['stripe'])) {
      if (e.route.kind !== 'not_yet') continue;
      for (const lang of ['en', 'fr'] as const) expect(DASHBOARD_TEXT[lang].notReachedWhy(e.route.why), `${e.name} ${lang}`).toMatch(/^[^`]{10,}$/);
    }
  });

  it("builds the add form from the connector's credential fields: secrets as password inputs", async () => {
    const page = await get('/dashboard/psp-accounts');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('href="/dashboard/psp-accounts/new?psp=stripe"');
    expect(page.body).not.toContain('new?psp=sandbox');
    const add = await get('/dashboard/psp-accounts/new?psp=ogone');
    expect(add.statusCode).toBe(200);
    expect(add.body).toMatch(/<input id="cred_sha_in" name="credentials.sha_in" type="password"/);
    expect(add.body).toMatch(/<input id="cred_pspid" name="credentials.pspid" type="text"/);
    expect(add.body).toMatch(/<select id="cred_hash_algorithm" name="credentials.hash_algorithm"/);
    expect((await get('/dashboard/psp-accounts/new?psp=acme')).statusCode).toBe(404);
  });

  it('adds an account checked with the PSP; the secrets are never shown again, in a page or a log line', async () => {
    const res = await post('/dashboard/psp-accounts', stripeForm());
    expect(res.statusCode, res.body).toBe(303);
    const saved = (await accountsOf(a)).find((x) => x.label === 'Main Stripe')!;
    expect(res.headers.location).toBe(`/dashboard/psp-accounts/${saved.id}?done=created`);
    expect(saved.credentials).toEqual({ secret_key: `…${SECRET_KEY.slice(-4)}`, webhook_secret: `…${WEBHOOK_SECRET.slice(-4)}` });
    expect((await get(res.headers.location as string)).body).toContain('PSP account saved.');
    const list = await get('/dashboard/psp-accounts');
    expect(list.body).toContain(saved.id);
    for (const secret of [SECRET_KEY, WEBHOOK_SECRET]) {
      expect(list.body).not.toContain(secret);
      for (const line of app.logs) expect(line).not.toContain(secret);
    }
    const { rows } = await app.services.db.query<{ action: string }>('SELECT action FROM audit_log WHERE subject = $1', [saved.id]);
    expect(rows.map((r) => r.action)).toEqual(['psp_account_create']);
  });

  it('refuses bad input naming the field, keeps what was typed but no secret, and saves nothing', async () => {
    const before = (await accountsOf(a)).length;
    const bad = await post('/dashboard/psp-accounts', stripeForm({ label: 'Bad', endpoint_url: 'ftp://psp.example.com' }));
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('endpoint_url');
    expect(bad.body).toContain('value="Bad"');
    expect(bad.body).not.toContain(SECRET_KEY);
    const rejected = await post('/dashboard/psp-accounts', stripeForm({ label: 'Wrong key', 'credentials.secret_key': 'sk_test_51WrongKey00000000000000000000000000000000zz' }));
    expect(rejected.statusCode).toBe(422);
    expect(rejected.body).toContain('The PSP refused these credentials');
    expect((await accountsOf(a)).length).toBe(before);
  });

  it('labels the fields in words, says what the PSP account needs (raw card data for Stripe) and, on a refused format, the format expected', async () => {
    const add = await get('/dashboard/psp-accounts/new?psp=stripe');
    expect(add.body).toMatch(/<label for="cred_secret_key">Secret key<\/label>/);
    expect(add.body).toMatch(/<label for="cred_webhook_secret">Webhook signing secret <span class="muted">\(optional\)<\/span><\/label>/);
    expect(add.body).toContain('Raw card data APIs enabled');
    expect(add.body).toContain('Format: sk_test_… or sk_live_… followed by letters and digits.');
    expect((await get('/dashboard/psp-accounts/new?psp=adyen')).body).toContain('Raw card data processing approved by Adyen');
    const bad = await post('/dashboard/psp-accounts', stripeForm({ label: 'Typo', 'credentials.secret_key': 'pk_test_51NotASecretKey000000000000' }));
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="account-error">Secret key: does not have the expected format: sk_test_… or sk_live_… followed by letters and digits.</div>');
    expect(bad.body).not.toContain('pk_test_51NotASecretKey');
    const fr = await post('/dashboard/psp-accounts?lang=fr', stripeForm({ label: 'Typo', 'credentials.secret_key': 'pk_test_51NotASecretKey000000000000' }));
    expect(fr.body).toContain('Clé secrète\u00a0: n’a pas le format attendu\u00a0: sk_test_… ou sk_live_… suivi de lettres et chiffres.');
  });

  it('in French, says where to find each credential of every connector in French: no English help sentence of its definition', async () => {
    const escaped = (text: string) => html`${text}`.toString();
    for (const def of CONNECTOR_DEFINITIONS.filter((d) => d.name !== DEFAULT_PSP)) {
      const fr = (await get(`/dashboard/psp-accounts/new?psp=${def.name}&lang=fr`)).body;
      const en = (await get(`/dashboard/psp-accounts/new?psp=${def.name}&lang=en`)).body;
      for (const f of def.credentialFields) {
        expect(fr, `${def.name}.${f.name}`).not.toContain(escaped(f.description));
        expect(fr, `${def.name}.${f.name}`).toContain(escaped(CREDENTIAL_HELP_FR[`${def.name}.${f.name}`]!));
        expect(en, `${def.name}.${f.name}`).toContain(escaped(f.description));
      }
    }
    const stripeFr = (await get('/dashboard/psp-accounts/new?psp=stripe&lang=fr')).body;
    expect(stripeFr).toContain('Dashboard Stripe → Développeurs → Clés API → Clé secrète (sk_test_… en mode test, sk_live_… en mode production).');
    expect(stripeFr).not.toMatch(/in (test|live) mode|shown once the account is saved|Each endpoint has its own/);
    // The API answers in English, as it always has (docs/api-conventions.md: only error messages follow Accept-Language).
    const psps = (await app.server.inject({ method: 'GET', url: '/api/backoffice/psps', headers: { authorization: a.dashboard, 'accept-language': 'fr-FR' } })).json() as {
      name: string;
      credential_fields: { name: string; description: string }[];
    }[];
    expect(psps.find((p) => p.name === 'stripe')!.credential_fields[0]!.description).toBe(
      'Dashboard → Developers → API keys → Secret key (sk_test_… in test mode, sk_live_… in live mode).',
    );
  });

  it('gives no notification URL to set at a PSP whose notifications Chipin cannot verify (CentralPay): its outcomes are read from it', async () => {
    const created = await app.server.inject({
      method: 'POST',
      url: '/api/backoffice/psp_accounts?verify=false',
      headers: { authorization: a.dashboard, 'content-type': 'application/json' },
      payload: JSON.stringify({
        psp: 'centralpay',
        environment: 'test',
        label: 'No webhooks',
        credentials: { login: 'chipin-api', api_key: 'ApiKey12345678', point_of_sale_id: '0b6c0b8e-3c5e-4b6e-9a39-5b1f0e3f7a21' },
      }),
    });
    expect(created.statusCode, created.body).toBe(201);
    const page = await get(`/dashboard/psp-accounts/${created.json().id as string}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No webhooks');
    expect(page.body).not.toContain('notification-url-value');
    expect(page.body).not.toContain('/assets/copy.js');
  });

  it('adds a Stripe account before its webhook exists: its page shows the notification URL to copy and the missing signing secret, added then by editing', async () => {
    const res = await post('/dashboard/psp-accounts', stripeForm({ label: 'Webhook later', 'credentials.webhook_secret': '' }));
    expect(res.statusCode, res.body).toBe(303);
    const saved = (await accountsOf(a)).find((x) => x.label === 'Webhook later')!;
    expect(saved.credentials).toEqual({ secret_key: `…${SECRET_KEY.slice(-4)}` });
    const url = `${app.services.config.publicUrl.replace(/\/+$/, '')}/api/psp/${saved.id}/notifications`;
    const page = await get(res.headers.location as string);
    expect(page.body).toContain('PSP account saved.');
    expect(page.body).toMatch(new RegExp(`<input id="notification-url-value" type="text" readonly value="${url.replace(/[.?]/g, '\\$&')}"`));
    expect(page.body).toContain('data-copy="notification-url-value"');
    expect(page.body).toContain('<script src="/assets/copy.js" defer></script>');
    expect(page.body).toContain('Webhook signing secret is not set yet');
    const pageFr = await get(`${res.headers.location as string}${(res.headers.location as string).includes('?') ? '&' : '?'}lang=fr`);
    expect(pageFr.body).toContain('Il manque encore «\u00a0Secret de signature du webhook\u00a0»\u00a0: les notifications de Stripe sont refusées d’ici là.');
    expect(pageFr.body).not.toContain('renseigné');
    // Notifications are refused until then: no secret, no signature can be checked.
    const refused = await app.server.inject({ method: 'POST', url: `/api/psp/${saved.id}/notifications`, headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);

    const edit = await post(
      `/dashboard/psp-accounts/${saved.id}`,
      form({ csrf: sa.csrf, label: 'Webhook later', environment: 'test', 'credentials.webhook_secret': WEBHOOK_SECRET, endpoint_url: stripe.account.baseUrl, verify: 'yes' }),
    );
    expect(edit.statusCode, edit.body).toBe(303);
    expect((await accountsOf(a)).find((x) => x.id === saved.id)!.credentials).toEqual({ secret_key: `…${SECRET_KEY.slice(-4)}`, webhook_secret: `…${WEBHOOK_SECRET.slice(-4)}` });
    const after = await get(`/dashboard/psp-accounts/${saved.id}`);
    expect(after.body).not.toContain('is not set yet');
    expect(after.body).toContain(url);
  });

  it('refuses a post without the CSRF token, and changes nothing', async () => {
    const before = (await accountsOf(a)).length;
    expect((await post('/dashboard/psp-accounts', stripeForm({ csrf: 'wrong', label: 'No token' }))).statusCode).toBe(403);
    expect((await accountsOf(a)).length).toBe(before);
  });

  it("deletes after a confirmation; another merchant's account is a 404 and stays; an account an offer uses is kept (409)", async () => {
    expect((await post('/dashboard/psp-accounts', stripeForm({ label: 'To delete' }))).statusCode).toBe(303);
    const id = (await accountsOf(a)).find((x) => x.label === 'To delete')!.id;
    expect((await post(`/dashboard/psp-accounts/${id}/delete`, form({ csrf: sb.csrf, confirm: 'yes' }), sb)).statusCode).toBe(404);
    const ask = await post(`/dashboard/psp-accounts/${id}/delete`, form({ csrf: sa.csrf }));
    expect(ask.statusCode).toBe(200);
    expect(ask.body).toContain('name="confirm" value="yes"');
    expect((await accountsOf(a)).some((x) => x.id === id)).toBe(true);
    const done = await post(`/dashboard/psp-accounts/${id}/delete`, form({ csrf: sa.csrf, confirm: 'yes' }));
    expect(done.statusCode).toBe(303);
    expect((await accountsOf(a)).some((x) => x.id === id)).toBe(false);

    const used = (await accountsOf(a)).find((x) => x.label === 'Main Stripe')!.id;
    const bind = await app.server.inject({
      method: 'PATCH',
      url: `/api/backoffice/offers/${a.offer('SHARED')}`,
      headers: { authorization: a.dashboard, 'content-type': 'application/json' },
      payload: JSON.stringify({ psp_account_id: used }),
    });
    expect(bind.statusCode).toBe(200);
    const refused = await post(`/dashboard/psp-accounts/${used}/delete`, form({ csrf: sa.csrf, confirm: 'yes' }));
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('This PSP account is in use');
    expect((await accountsOf(a)).some((x) => x.id === used)).toBe(true);
  });
});

describe("a PSP account's page", () => {
  const auditsOf = async (id: string) =>
    (
      await app.services.db.query<{ action: string; actor: string; details: unknown }>('SELECT action, actor, details FROM audit_log WHERE subject = $1 ORDER BY created_at', [id])
    ).rows.map((r) => ({
      ...r,
      details: typeof r.details === 'string' ? JSON.parse(r.details) : r.details,
    }));
  const viewOf = async (id: string) =>
    (await app.server.inject({ method: 'GET', url: `/api/backoffice/psp_accounts/${id}`, headers: { authorization: a.dashboard } })).json() as {
      label: string;
      environment: string;
      verified_at: string | null;
      updated_at: string;
      credentials: Record<string, string>;
    };
  let id: string;

  beforeAll(async () => {
    expect((await post('/dashboard/psp-accounts', stripeForm({ label: 'Page Stripe' }))).statusCode).toBe(303);
    id = (await accountsOf(a)).find((x) => x.label === 'Page Stripe')!.id;
    const bind = await app.server.inject({
      method: 'PATCH',
      url: `/api/backoffice/offers/${a.offer('INSTALLMENTS', 3)}`,
      headers: { authorization: a.dashboard, 'content-type': 'application/json' },
      payload: JSON.stringify({ psp_account_id: id }),
    });
    expect(bind.statusCode).toBe(200);
  });

  it('shows its label, connector, environment, when it was checked and the offers using it; secrets only masked', async () => {
    const page = await get(`/dashboard/psp-accounts/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Page Stripe</h1>');
    // The account is named by its label; its id is a fact of its own, not a heading.
    expect(page.body).toContain('<h2 id="facts">About this account</h2>');
    expect(page.body).toContain(`<dt>Reference</dt><dd>${id}</dd>`);
    expect(page.body).not.toMatch(/<h\d[^>]*>psa_/);
    expect(page.body).toContain((await viewOf(id)).verified_at!);
    expect(page.body).toContain(`href="/dashboard/offers/${a.offer('INSTALLMENTS', 3)}"`);
    expect(page.body).toContain(`placeholder="…${SECRET_KEY.slice(-4)}"`);
    expect(page.body).not.toContain(SECRET_KEY);
    expect(page.body).not.toContain(WEBHOOK_SECRET);
    expect((await get('/dashboard/psp-accounts')).body).toContain(`href="/dashboard/psp-accounts/${id}"`);
    const fr = await get(`/dashboard/psp-accounts/${id}?lang=fr`);
    expect(fr.body).toContain('Vérifier à nouveau');
    expect(fr.body).toContain('Offres qui passent par lui');
  });

  it('changes the label with the credentials left blank: the saved secrets are kept, and the change is audited without a value', async () => {
    const before = await viewOf(id);
    const res = await post(
      `/dashboard/psp-accounts/${id}`,
      form({
        csrf: sa.csrf,
        label: 'Renamed Stripe',
        environment: 'test',
        'credentials.secret_key': '',
        'credentials.webhook_secret': '',
        endpoint_url: stripe.account.baseUrl,
        verify: 'yes',
      }),
    );
    expect(res.statusCode, res.body).toBe(303);
    const page = await get(res.headers.location as string);
    expect(page.body).toContain('role="status"');
    const after = await viewOf(id);
    expect(after).toMatchObject({ label: 'Renamed Stripe', credentials: before.credentials, verified_at: before.verified_at });
    const update = (await auditsOf(id)).find((e) => e.action === 'psp_account_update')!;
    expect(update).toMatchObject({ actor: a.merchant.email, details: { changed: ['label'], verified: false } });
    expect(JSON.stringify(await auditsOf(id))).not.toContain(SECRET_KEY.slice(-8));
  });

  it('checks new credentials with the PSP through the same use case: refused, nothing changes and no secret is echoed', async () => {
    const before = await viewOf(id);
    const wrong = 'sk_test_51WrongKey00000000000000000000000000000000zz';
    const res = await post(
      `/dashboard/psp-accounts/${id}`,
      form({ csrf: sa.csrf, label: 'Renamed Stripe', environment: 'test', 'credentials.secret_key': wrong, endpoint_url: stripe.account.baseUrl, verify: 'yes' }),
    );
    expect(res.statusCode).toBe(422);
    expect(res.body).toMatch(/role="alert" id="account-error">Credentials: The PSP refused these credentials/);
    expect(res.body).not.toContain(wrong);
    expect(res.body).not.toContain(SECRET_KEY);
    expect(await viewOf(id)).toEqual(before);
    const bad = await post(`/dashboard/psp-accounts/${id}`, form({ csrf: sa.csrf, label: 'Renamed Stripe', environment: 'test', endpoint_url: 'ftp://psp.example.com' }));
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/id="endpoint_url"[^>]*aria-invalid="true"/);
    expect(await viewOf(id)).toEqual(before);
  });

  it('"Check again" calls the PSP with the saved settings, records when, and is audited; the API does the same', async () => {
    const before = await viewOf(id);
    const res = await post(`/dashboard/psp-accounts/${id}/verify`, form({ csrf: sa.csrf }));
    expect(res.statusCode).toBe(303);
    expect((await get(res.headers.location as string)).body).toContain('The PSP accepted the saved settings.');
    const after = await viewOf(id);
    expect(after.credentials).toEqual(before.credentials);
    expect(after.verified_at).not.toBeNull();
    expect(after.updated_at > before.updated_at).toBe(true);
    const api = await app.server.inject({ method: 'POST', url: `/api/backoffice/psp_accounts/${id}/verify`, headers: { authorization: a.dashboard } });
    expect(api.statusCode).toBe(200);
    expect(api.json().credentials).toEqual(before.credentials);
    const checks = (await auditsOf(id)).filter((e) => e.action === 'psp_account_verify');
    expect(checks).toHaveLength(2);
    expect(checks[0]).toMatchObject({ actor: a.merchant.email, details: { changed: [], verified: true } });
  });

  it("answers 404 for another merchant's account, shown, changed or checked, and leaves it as it was", async () => {
    const before = await viewOf(id);
    expect((await get(`/dashboard/psp-accounts/${id}`, sb)).statusCode).toBe(404);
    expect((await post(`/dashboard/psp-accounts/${id}`, form({ csrf: sb.csrf, label: 'Stolen', environment: 'test' }), sb)).statusCode).toBe(404);
    expect((await post(`/dashboard/psp-accounts/${id}/verify`, form({ csrf: sb.csrf }), sb)).statusCode).toBe(404);
    expect((await app.server.inject({ method: 'POST', url: `/api/backoffice/psp_accounts/${id}/verify`, headers: { authorization: b.dashboard } })).statusCode).toBe(404);
    expect(await viewOf(id)).toEqual(before);
    expect((await post(`/dashboard/psp-accounts/${id}/verify`, form({ csrf: 'wrong' }))).statusCode).toBe(403);
  });
});
