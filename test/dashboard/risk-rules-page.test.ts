/**
 * The offer page's risk rules section (docs/risk.md#defaults-and-overrides): the rules in effect
 * on the offer, each with where it comes from, in English and French; and the forms editing the
 * offer's own rules and the account's defaults (docs/risk.md#editing-the-rules).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addDashboardUser, form, signIn } from '../helpers/dashboard.ts';

let app: TestApp;
let a: Caller;
let s: { cookie: string; csrf: string };
beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
  s = await signIn(app, a.merchant);
});
afterAll(() => app?.close());

const put = (url: string, body: unknown) =>
  app.server.inject({ method: 'PUT', url, headers: { authorization: a.dashboard, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
const page = (uid: string, lang: 'en' | 'fr') => app.server.inject({ method: 'GET', url: `/dashboard/offers/${uid}`, headers: { cookie: s.cookie, 'accept-language': lang } });
/** The section's rows as `label | value | source`, tags dropped. */
const rows = (body: string) =>
  [...(body.split('id="risk"')[1] ?? '').matchAll(/<tr><th scope="row">(.*?)<\/th><td>(.*?)<\/td><td>(.*?)<\/td><\/tr>/g)].map((m) =>
    [m[1]!.replace(/<[^>]+>/g, ''), m[2], m[3]].join(' | '),
  );

describe("the offer page's risk rules", () => {
  it('shows the rules in effect on the offer by their names in words and who set each: Chipin, the account, the offer; a rule switched off on the offer is gone', async () => {
    const uid = a.offer('INSTALLMENTS', 3);
    expect((await put('/api/backoffice/risk_rules/account', { max_outstanding_cents: 300_000, min_score: 30, card_countries: ['FR', 'BE'] })).statusCode).toBe(200);
    expect((await put(`/api/backoffice/risk_rules/offers/${uid}`, { min_score: null, max_plans_per_day: 2, refuse_prepaid_cards: false })).statusCode).toBe(200);
    const en = await page(uid, 'en');
    expect(en.statusCode).toBe(200);
    // Staff read words: no API name beside a rule, no path into the project's docs.
    expect(en.body.split('id="risk"')[1]!.replace(/<[^>]+>/g, '')).not.toMatch(/_cents|_cards|_plan|docs\//);
    expect(en.body).toContain('<h2 id="risk">Risk rules</h2>');
    expect(rows(en.body)).toEqual([
      'Most credit owed by one shopper | €3,000.00 | the account',
      'Plans per shopper in a day | 2 | this offer',
      'Prepaid cards refused for credit | no | this offer',
      'Card issuing countries allowed | FR, BE | the account',
      'Card must outlast the plan | yes | Chipin (built-in)',
    ]);
    const fr = await page(uid, 'fr');
    expect(fr.body).toContain('<h2 id="risk">Règles de risque</h2>');
    expect(rows(fr.body)[1]).toBe('Plans par client en un jour | 2 | cette offre');
    // Amounts as every French amount is written, not "3000.00 EUR".
    expect(rows(fr.body)[0]).toBe('Encours maximal d’un client | 3\u202f000,00\u00a0€ | le compte');
  });
});

/**
 * Editing the rules on the back office's pages (docs/risk.md#editing-the-rules): the offer's page
 * and the account's Risk rules page post to the API's use case (editRiskRules), so they check,
 * write and audit as the API does; a refusal names the rule beside its input, in the page's
 * language, and writes nothing; support users and forged forms are refused.
 */
const postForm = (url: string, fields: Record<string, string>, session = s, lang: 'en' | 'fr' = 'en') =>
  app.server.inject({
    method: 'POST',
    url,
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': lang },
    payload: form({ csrf: session.csrf, ...fields }),
  });
const rulesOf = async () => (await app.server.inject({ method: 'GET', url: '/api/backoffice/risk_rules', headers: { authorization: a.dashboard } })).json() as RiskRulesJson;
const overridesOf = async (uid: string) => (await rulesOf()).offers.find((o) => o.merchant_uid === uid)!.overrides;
const audits = async () =>
  (
    await app.services.db.query<{ actor: string; subject: string; details: unknown }>(
      "SELECT actor, subject, details FROM audit_log WHERE account_id = $1 AND action = 'risk_rules_update' ORDER BY created_at",
      [a.accountId],
    )
  ).rows.map((r) => ({ ...r, details: typeof r.details === 'string' ? JSON.parse(r.details) : r.details }));
interface RiskRulesJson {
  account: Record<string, unknown>;
  offers: { merchant_uid: string; overrides: Record<string, unknown> }[];
}

describe('editing the risk rules on the back-office pages', () => {
  it("saves the offer's own rules from its page (set, off, follow; a list one entry per line; an amount in the offer's currency) and audits them as the API does", async () => {
    const uid = a.offer('INSTALLMENTS', 4);
    const before = (await audits()).length;
    const res = await postForm(`/dashboard/offers/${uid}/risk-rules`, {
      mode_max_plans_per_day: 'set',
      value_max_plans_per_day: ' 3 ',
      mode_min_score: 'off',
      mode_card_countries: 'set',
      value_card_countries: 'fr\r\n\r\nbe\r\n',
      mode_max_amount_cents: 'set',
      value_max_amount_cents: '150.00',
      mode_refuse_prepaid_cards: 'set',
      value_refuse_prepaid_cards: 'false',
      // A value typed under "follow the account" is not a rule of the offer.
      mode_max_outstanding_cents: 'follow',
      value_max_outstanding_cents: '99',
    });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/offers/${uid}?done=risk_saved#risk`);
    expect(await overridesOf(uid)).toEqual({ max_amount_cents: 15_000, max_plans_per_day: 3, refuse_prepaid_cards: false, card_countries: ['FR', 'BE'], min_score: null });
    const entries = await audits();
    expect(entries.length).toBe(before + 1);
    expect(entries.at(-1)).toMatchObject({ actor: a.merchant.email, subject: uid });
    expect(entries.at(-1)!.details).toEqual({
      max_amount_cents: { from: null, to: 15_000 },
      max_plans_per_day: { from: null, to: 3 },
      refuse_prepaid_cards: { from: null, to: false },
      card_countries: { from: null, to: ['FR', 'BE'] },
      min_score: { from: null, to: 'off' },
    });
    const shown = await app.server.inject({ method: 'GET', url: res.headers.location!, headers: { cookie: s.cookie, 'accept-language': 'en' } });
    expect(shown.body).toContain('<div class="ok" role="status">This offer’s risk rules were saved.</div>');
    // The form shows what is stored: the offer's own values, the rule switched off, the others following the account.
    expect(shown.body).toMatch(/id="mode-min_score-off" name="mode_min_score" value="off" checked/);
    expect(shown.body).toMatch(/<textarea id="value-card_countries"[^>]*>FR\nBE<\/textarea>/);
    expect(shown.body).toMatch(/id="value-max_amount_cents" name="value_max_amount_cents"[^>]*value="150.00"/);
    expect(shown.body).toMatch(/id="mode-max_outstanding_cents-follow" name="mode_max_outstanding_cents" value="follow" checked/);
  });

  it('refuses a value that breaks the schema with the rule named beside its input, in the page’s language, and writes nothing', async () => {
    const uid = a.offer('DEFERRED');
    expect((await put(`/api/backoffice/risk_rules/offers/${uid}`, { max_plans_per_hour: 5 })).statusCode).toBe(200);
    const before = await audits();
    const en = await postForm(`/dashboard/offers/${uid}/risk-rules`, {
      mode_max_plans_per_hour: 'set',
      value_max_plans_per_hour: '1',
      mode_max_plans_per_day: 'set',
      value_max_plans_per_day: '0',
    });
    expect(en.statusCode).toBe(400);
    expect(en.body).toContain('<p class="field-error" id="error-max_plans_per_day">Plans per shopper in a day: must be a whole number between 1 and 1000</p>');
    expect(en.body).toMatch(/<input id="value-max_plans_per_day" name="value_max_plans_per_day"[^>]* value="0" aria-describedby="error-max_plans_per_day" aria-invalid="true">/);
    expect(en.body).toContain('role="alert" id="risk-error"><a href="#value-max_plans_per_day">Nothing was saved. Plans per shopper in a day: must be a whole number');
    // What was typed is shown again, the rest too.
    expect(en.body).toMatch(/id="value-max_plans_per_hour" name="value_max_plans_per_hour"[^>]* value="1"/);

    const fr = await postForm(`/dashboard/offers/${uid}/risk-rules`, { mode_card_countries: 'set', value_card_countries: 'FR\n\nFrance' }, s, 'fr');
    expect(fr.statusCode).toBe(400);
    // The line as typed: the blank line counts.
    expect(fr.body).toContain('id="error-card_countries">Pays d’émission des cartes acceptés\u00a0: la ligne 3 doit être un code pays à deux lettres (ISO 3166, comme FR)</p>');
    expect(fr.body).toMatch(
      /<textarea id="value-card_countries" name="value_card_countries"[^>]* aria-describedby="error-card_countries hint-card_countries" aria-invalid="true">/,
    );

    const amount = await postForm(`/dashboard/offers/${uid}/risk-rules`, { mode_max_outstanding_cents: 'set', value_max_outstanding_cents: 'lots' }, s, 'fr');
    expect(amount.statusCode).toBe(400);
    expect(amount.body).toContain('id="error-max_outstanding_cents">Encours maximal d’un client\u00a0: doit être un montant, comme 12,50</p>');

    // A fallback offer (docs/risk.md#the-fallback) that is not another offer of the account: its line as typed.
    const other = await caller(app);
    const fallback = await postForm(
      `/dashboard/offers/${uid}/risk-rules`,
      { mode_fallback_offers: 'set', value_fallback_offers: `${a.offer('SHARED')}\n\n${other.offer('SHARED')}` },
      s,
      'fr',
    );
    expect(fallback.statusCode).toBe(400);
    expect(fallback.body).toContain('id="error-fallback_offers">Offres proposées après un refus\u00a0: la ligne 3 doit être une autre offre de ce compte</p>');

    expect(await overridesOf(uid)).toEqual({ max_plans_per_hour: 5 });
    expect(await audits()).toEqual(before);
  });

  it("saves the account's defaults from the Risk rules page (linked from Settings), audited with the account as subject", async () => {
    const settings = await app.server.inject({ method: 'GET', url: '/dashboard/settings', headers: { cookie: s.cookie } });
    expect(settings.body).toContain('href="/dashboard/settings/risk-rules"');
    const shown = await app.server.inject({ method: 'GET', url: '/dashboard/settings/risk-rules', headers: { cookie: s.cookie, 'accept-language': 'fr' } });
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain('<h1>Règles de risque</h1>');
    // An account's rule is set or not (no "switch off" there); not set, Chipin's default applies.
    expect(shown.body).not.toContain('mode-min_score-off');
    expect(shown.body).toContain('Non fixée (valeur par défaut de Chipin\u00a0: oui)');
    const res = await postForm('/dashboard/settings/risk-rules', {
      mode_max_outstanding_cents: 'set',
      value_max_outstanding_cents: '2 500,00',
      mode_blocked_emails: 'set',
      value_blocked_emails: 'Fraud@Example.com\nother@example.com',
    });
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe('/dashboard/settings/risk-rules?done=saved');
    expect((await rulesOf()).account).toEqual({ max_outstanding_cents: 250_000, blocked_emails: ['fraud@example.com', 'other@example.com'] });
    const entry = (await audits()).at(-1)!;
    expect(entry.subject).toBe(`acc_${a.accountId}`);
    expect(entry.details).toMatchObject({ max_outstanding_cents: { to: 250_000 } });
    const bad = await postForm('/dashboard/settings/risk-rules', {
      mode_min_amount_cents: 'set',
      value_min_amount_cents: '50',
      mode_max_amount_cents: 'set',
      value_max_amount_cents: '10',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="error-min_amount_cents">Smallest amount: must not be above the largest amount (€10.00)</p>');
    expect((await rulesOf()).account).toEqual({ max_outstanding_cents: 250_000, blocked_emails: ['fraud@example.com', 'other@example.com'] });
  });

  it('refuses a support user (403, no form to reach) and a form without the session’s CSRF token (403); nothing is written', async () => {
    const uid = a.offer('SHARED');
    const support = await signIn(app, await addDashboardUser(app, a.accountId, 'support'));
    const before = await audits();
    const fields = { mode_max_plans_per_day: 'set', value_max_plans_per_day: '2' };
    expect((await postForm(`/dashboard/offers/${uid}/risk-rules`, fields, support)).statusCode).toBe(403);
    expect((await postForm('/dashboard/settings/risk-rules', fields, support)).statusCode).toBe(403);
    expect((await app.server.inject({ method: 'GET', url: '/dashboard/settings/risk-rules', headers: { cookie: support.cookie } })).statusCode).toBe(403);
    const forged = { ...s, csrf: 'x'.repeat(s.csrf.length) };
    expect((await postForm(`/dashboard/offers/${uid}/risk-rules`, fields, forged)).statusCode).toBe(403);
    expect((await postForm('/dashboard/settings/risk-rules', fields, forged)).statusCode).toBe(403);
    expect(await overridesOf(uid)).toEqual({});
    expect(await audits()).toEqual(before);
  });
});
