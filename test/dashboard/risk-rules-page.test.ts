/**
 * The offer page's risk rules section (docs/risk.md#defaults-and-overrides): the rules in effect
 * on the offer, each with where it comes from, in English and French.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signIn } from '../helpers/dashboard.ts';

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
  it('shows the rules in effect on the offer and who set each: Chipin, the account, the offer; a rule switched off on the offer is gone', async () => {
    const uid = a.offer('INSTALLMENTS', 3);
    expect((await put('/api/backoffice/risk_rules/account', { max_outstanding_cents: 300_000, min_score: 30, card_countries: ['FR', 'BE'] })).statusCode).toBe(200);
    expect((await put(`/api/backoffice/risk_rules/offers/${uid}`, { min_score: null, max_plans_per_day: 2, refuse_prepaid_cards: false })).statusCode).toBe(200);
    const en = await page(uid, 'en');
    expect(en.statusCode).toBe(200);
    expect(en.body).toContain('<h2 id="risk">Risk rules</h2>');
    expect(rows(en.body)).toEqual([
      'Most credit owed by one shopper max_outstanding_cents | 3000.00 EUR | the account',
      'Plans per shopper in a day max_plans_per_day | 2 | this offer',
      'Prepaid cards refused for credit refuse_prepaid_cards | no | this offer',
      'Card issuing countries allowed card_countries | FR, BE | the account',
      'Card must outlast the plan card_must_outlast_plan | yes | Chipin (built-in)',
    ]);
    const fr = await page(uid, 'fr');
    expect(fr.body).toContain('<h2 id="risk">Règles de risque</h2>');
    expect(rows(fr.body)[1]).toBe('Plans par client en un jour max_plans_per_day | 2 | cette offre');
  });
});
