import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { englishLeft, visibleText } from '../helpers/words-left.ts';
import { LANGS, languageTag, LOCALE, type Lang } from '../../src/i18n/lang.ts';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { challengeRelayGonePage, challengeRelayPage } from '../../src/pages/challenge-relay-page.ts';
import { confirmingPage } from '../../src/pages/checkout-page.ts';
import { directPaidPage, directRefusedPage } from '../../src/pages/direct-call-page.ts';
import { pledgeNotFoundPage } from '../../src/pages/pledge-page.ts';
import { TEXT } from '../../src/pages/texts.ts';

let app: TestApp;
let a: Caller;
beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
});
afterAll(() => app.close());

it('payment_url opens a page showing title, amount and merchant, with a strict CSP', async () => {
  const p = (
    await a.post(
      '/api/merchants/v1/purchases',
      minimalPurchase({ title: 'Weekend <b>in</b> Lisbon', amount: 123_456, products: [{ label: 'Hotel', amount: 123_456, currency: 'EUR' }] }),
    )
  ).json();
  const res = await app.server.inject(new URL(p.payment_url).pathname);
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toContain('text/html');
  expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  expect(res.body).toContain('Weekend &lt;b&gt;in&lt;/b&gt; Lisbon'); // escaped, never markup
  expect(res.body).toContain('Test Shop');
  expect(res.body).toMatch(/€1,234\.56|1,234\.56/);
});

it('the page speaks the purchase language', async () => {
  const link = await a.post(`/api/merchants/${a.offer('SHARED')}/purchase_link`, {
    data: { title: 'Vélo', amountCents: 99_950, email: 'x@example.com', language: 'fr_FR' },
  });
  const res = await app.server.inject(new URL(link.json().url).pathname);
  expect(res.body).toContain('lang="fr-FR"');
  expect(res.body).toContain('Vendu par');
  expect(res.body).toMatch(/999,50\s€/);
});

it('a purchase made without a language follows the shopper: the page they last used, else their browser; one with a language keeps it; ?lang= beats all', async () => {
  const page = async (url: string, acceptLanguage?: string) =>
    (await app.server.inject({ url: new URL(url).pathname + new URL(url).search, headers: acceptLanguage ? { 'accept-language': acceptLanguage } : {} })).body;
  // Merchant API v1 from the merchant's server: no Accept-Language, no language.
  const bare = (await a.post('/api/merchants/v1/purchases', minimalPurchase())).json();
  expect(await page(bare.payment_url, 'fr-FR,fr;q=0.9,en;q=0.5')).toContain('lang="fr-FR"');
  expect(await page(bare.payment_url, 'fr-FR,fr;q=0.9,en;q=0.5')).toContain('Vendu par');
  // The page the shopper last used comes before the browser: opened again from an English browser, it stays French…
  expect(await page(bare.payment_url, 'en-US')).toContain('lang="fr-FR"');
  // …until the shopper picks another language, which is kept in turn.
  expect(await page(`${bare.payment_url}?lang=en`, 'fr-FR')).toContain('lang="en-GB"');
  expect(await page(bare.payment_url, 'fr-FR')).toContain('lang="en-GB"');
  const unseen = (await a.post('/api/merchants/v1/purchases', minimalPurchase())).json();
  expect(await page(unseen.payment_url, 'en-US')).toContain('lang="en-GB"');
  // The Token API's purchase link without a language: the same.
  const link = (await a.post(`/api/merchants/${a.offer('SHARED')}/purchase_link`, { data: { title: 'Vélo', amountCents: 9_950, email: 'x@example.com' } })).json();
  expect(await page(link.url, 'fr')).toContain('lang="fr-FR"');
  // A language the merchant chose wins over the browser's.
  const english = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ language: 'en_GB' }))).json();
  expect(await page(english.payment_url, 'fr-FR')).toContain('lang="en-GB"');
  expect(await page(english.payment_url, 'fr-FR')).not.toContain('Vendu par');
});

it('a 3x plan\'s first line says "Today", the others their date', async () => {
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: a.offer('INSTALLMENTS', 3), language: 'en_GB' }))).json();
  const body = (await app.server.inject(new URL(p.payment_url).pathname)).body;
  const table = body.slice(body.indexOf('<table aria-label="Payment schedule">'), body.indexOf('</table>', body.indexOf('<table aria-label="Payment schedule">')));
  const firstCells = [...table.matchAll(/<tr><td>([^<]*)<\/td>/g)].map((m) => m[1]);
  expect(firstCells).toHaveLength(3);
  expect(firstCells[0]).toBe('Today');
  expect(firstCells.slice(1).every((d) => /\d{4}/.test(d!))).toBe(true);
  const fr = (await app.server.inject(`${new URL(p.payment_url).pathname}?lang=fr`)).body;
  expect(fr).toMatch(/<table aria-label="Échéancier">.*?<tr><td>Aujourd’hui<\/td>/s);
});

it('an unknown or malformed link answers a 404 page', async () => {
  for (const uid of ['pur_00000000-0000-4000-8000-000000000000', 'nope']) {
    const res = await app.server.inject(`/pay/${uid}`);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
  }
});

function cookieAndToken(res: { headers: Record<string, unknown>; body: string }) {
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const token = /name="csrf" value="([^"]+)"/.exec(res.body)![1]!;
  return { cookie, token };
}

it('a form POST without the CSRF cookie and token is refused with 403 and charges nothing', async () => {
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase())).json();
  const path = new URL(p.payment_url).pathname;
  const form = 'holder_name=X&card_number=4242424242424242&card_expiry=12%2F30&card_cvc=123';
  const forged = await app.server.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `${form}&csrf=forged` });
  expect(forged.statusCode).toBe(403);
  const page = await app.server.inject(path);
  const { cookie } = cookieAndToken(page);
  const wrongToken = await app.server.inject({ method: 'POST', url: path, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: `${form}&csrf=AAAA` });
  expect(wrongToken.statusCode).toBe(403);
  const { rows } = await app.services.db.query('SELECT 1 FROM payments WHERE purchase_id = $1', [p.id]);
  expect(rows).toEqual([]);
});

it('paying through the form keeps only the token, brand, last four digits and expiry of the card; nothing of it is logged', async () => {
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase())).json();
  const path = new URL(p.payment_url).pathname;
  const { cookie, token } = cookieAndToken(await app.server.inject(path));
  const res = await app.server.inject({
    method: 'POST',
    url: path,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `csrf=${encodeURIComponent(token)}&holder_name=L%C3%A9a&card_number=4242+4242+4242+4242&card_expiry=12%2F30&card_cvc=987`,
  });
  expect(res.statusCode).toBe(303);
  const { rows } = await app.services.db.query<Record<string, unknown>>('SELECT * FROM payment_methods WHERE purchase_id = $1', [p.id]);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ last4: '4242', exp_month: 12, exp_year: 2030 });
  const everything = JSON.stringify(rows) + app.logs.join('\n');
  expect(everything).not.toContain('4242424242424242');
  expect(everything).not.toContain('4242 4242 4242 4242');
});

it("an issuer's form POST back to the return pages is redirected to the same address as a GET, its query kept; with fields, for a payment of its own only (docs/psp-connectors.md#the-return-from-3-d-secure)", async () => {
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 1_000 }))).json();
  // The leader's own payment, awaiting 3-D Secure: the posted fields go to its PSP, then the GET.
  expect((await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, { card_number: '4000000000003220' })).statusCode).toBe(202);
  const { rows } = await app.services.db.query<{ id: string }>('SELECT id FROM payments WHERE purchase_id = $1', [p.id]);
  const own = rows[0]!.id;
  const post = (path: string, payment: string, payload: string) =>
    app.server.inject({ method: 'POST', url: `${path}?payment=${payment}&lang=fr`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
  const cres = 'cres=eyJ0aHJlZURTU2VydmVyVHJhbnNJRCI6IjEifQ&threeDSSessionData=abc';
  const leader = `/pay/pur_${p.id}/return`;
  const withFields = await post(leader, own, cres);
  expect(withFields.statusCode, withFields.body).toBe(303);
  expect(withFields.headers.location).toBe(`${leader}?payment=${own}&lang=fr`);
  // Without fields, any return is redirected as it came; with fields, an unknown payment or pledge
  // is the page's 404 and nothing is handed over.
  const unknown = '00000000-0000-4000-8000-000000000001';
  for (const path of [leader, `/pledge/plg_00000000-0000-4000-8000-000000000002/return`]) {
    const bare = await post(path, unknown, '');
    expect(bare.statusCode, path).toBe(303);
    expect(bare.headers.location).toBe(`${path}?payment=${unknown}&lang=fr`);
    expect((await post(path, unknown, cres)).statusCode, path).toBe(404);
  }
});

it('once paid, the page keeps the "test mode" banner of the PSP account the payment ran on, whatever account the offer names since', async () => {
  const offer = a.offer('DEFERRED');
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: offer, amount: 5_000 }))).json();
  expect((await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, { card_number: '4242424242424242' })).statusCode).toBe(200);
  const send = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
    app.server.inject({ method, url, headers: { authorization: a.dashboard, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const live = await send('POST', '/api/backoffice/psp_accounts?verify=false', {
    psp: 'stripe',
    environment: 'live',
    label: 'Live Stripe',
    credentials: { secret_key: `sk_live_${'a1B2c3D4e5'.repeat(3)}`, webhook_secret: `whsec_${'Q9w8E7r6T5y4U3i2'.repeat(2)}` },
  });
  expect(live.statusCode, live.body).toBe(201);
  expect((await send('PATCH', `/api/backoffice/offers/${offer}`, { psp_account_id: live.json().id })).statusCode).toBe(200);
  try {
    const paid = await app.server.inject(new URL(p.payment_url).pathname);
    expect(paid.body).toContain('class="test-mode"'); // paid on the sandbox PSP: a test payment
    const fresh = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: offer, amount: 5_000 }))).json();
    expect((await app.server.inject(new URL(fresh.payment_url).pathname)).body).not.toContain('class="test-mode"'); // not paid yet: the offer's live account
  } finally {
    await send('PATCH', `/api/backoffice/offers/${offer}`, { psp_account_id: null });
  }
});

it("an offer's stylesheet is linked on its pages, its origin alone allowed by the CSP, and its terms' link sits by the pay button of a pot", async () => {
  const uid = a.offer('SHARED');
  const edit = await app.server.inject({
    method: 'PATCH',
    url: `/api/backoffice/offers/${uid}`,
    headers: { authorization: a.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify({ css_url: 'https://cdn.shop.example:8443/theme/pay.css?v=2', gtu_url: 'https://shop.example/terms', gtu_label: 'Our terms' }),
  });
  expect(edit.statusCode).toBe(200);
  const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: uid }))).json();
  const res = await app.server.inject(new URL(p.payment_url).pathname);
  const csp = String(res.headers['content-security-policy']);
  expect(csp).toContain("style-src 'unsafe-inline' https://cdn.shop.example:8443;");
  expect(csp).toContain('font-src https://cdn.shop.example:8443;');
  expect(csp).toContain("script-src 'self';"); // a stylesheet never brings a script source
  expect(res.body).toContain('<link rel="stylesheet" href="https://cdn.shop.example:8443/theme/pay.css?v=2" referrerpolicy="no-referrer">');
  expect(res.body).toMatch(
    /id="pay-button">[^<]*<\/button>\s*<p class="center gtu"><a href="https:\/\/shop.example\/terms" target="_blank" rel="noopener noreferrer">Our terms<\/a>/,
  );

  // Another offer sets none: no link, the CSP without the merchant's origins.
  const plain = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: a.offer('INSTALLMENTS', 3) }))).json();
  const other = await app.server.inject(new URL(plain.payment_url).pathname);
  expect(other.headers['content-security-policy']).toContain("style-src 'unsafe-inline'; img-src");
  expect(other.body).not.toContain('rel="stylesheet"');
  expect(other.body).not.toContain('class="center gtu"');
});

it('a down payment’s page: the deposit now ("with the fees" only when it has some), the balance and its date, the pay button for the deposit; the credit box only when it costs something', async () => {
  const today = (await a.get('/api/sandbox/clock')).json().now.slice(0, 10) as string;
  const balanceDate = new Date(Date.parse(`${today}T00:00:00Z`) + 20 * 86_400_000).toISOString().slice(0, 10);
  const longDate = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${balanceDate}T00:00:00Z`));
  const page = async (c: Caller) => {
    const p = (
      await c.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: c.offer('DOWN_PAYMENT'), amount: 30_000, balance_payment_date: balanceDate, language: 'en_GB' }))
    ).json();
    return (await app.server.inject(new URL(p.payment_url).pathname)).body;
  };
  const free = await page(a);
  expect(free).toContain(`Pay a deposit of €90.00 now; the balance of €210.00 is charged on ${longDate}, on the same card.`);
  expect(free).toContain('>Pay €90.00</button>');
  expect(free).not.toContain('id="credit-warning"');
  const costly = await caller(app);
  const set = await app.server.inject({
    method: 'PATCH',
    url: `/api/backoffice/offers/${costly.offer('DOWN_PAYMENT')}`,
    headers: { authorization: costly.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify({ fee_rate_bps: 150 }),
  });
  expect(set.statusCode, set.body).toBe(200);
  const credit = await page(costly);
  expect(credit).toContain('>Pay €94.50</button>');
  expect(credit).toContain('Pay a deposit of €94.50 now, with the fees; the balance of €210.00');
  expect(credit).toContain('id="credit-warning"');
  expect(credit).toMatch(/id="credit-financed">€210\.00</);
});

describe('the hosted pages in the six languages', () => {
  // Shown alike in every language: the name of the bank check.
  const ALLOWED = ['3-D Secure'];
  const AREAS = ['pages', 'credit'];
  const relayForm = { action: 'https://acs.example.com/challenge', fields: { creq: 'x' } };

  it('a 3x purchase in each language shows its checkout, its credit disclosure in the country’s legal words and its result page in it, with no English left', async () => {
    const aprName: Record<Lang, RegExp> = { de: /Effektiver Jahreszins/, en: /APR/, es: /TAE fija/, fr: /TAEG fixe/, it: /TAEG fisso/, nl: /JKP/ };
    for (const lang of LANGS) {
      const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: a.offer('INSTALLMENTS', 3), language: languageTag(lang) }))).json();
      const path = new URL(p.payment_url).pathname;
      const t = TEXT[lang];
      const checkout = (await app.server.inject(path)).body;
      expect(checkout, lang).toContain(`lang="${LOCALE[lang]}"`);
      expect(visibleText(checkout), lang).toContain(visibleText(t.creditWarning));
      expect(visibleText(checkout), lang).toContain(visibleText(t.installmentsExplain(3, true)));
      expect(visibleText(checkout), lang).toMatch(aprName[lang]);
      expect(englishLeft(checkout, lang, AREAS, ALLOWED), lang).toEqual([]);
      const paid = await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, { card_number: '4242 4242 4242 4242' });
      expect(paid.statusCode, lang).toBe(200);
      const result = (await app.server.inject(path)).body;
      expect(visibleText(result), lang).toContain(visibleText(t.resultNext));
      expect(englishLeft(result, lang, AREAS, ALLOWED), lang).toEqual([]);
    }
  });

  it('a pot’s friend reads the pledge page in the purchase’s language, and every page without a purchase in the browser’s', async () => {
    for (const lang of LANGS) {
      const p = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: a.offer('SHARED'), language: languageTag(lang) }))).json();
      const paid = await a.post(`/api/sandbox/purchases/pur_${p.id}/pay`, {
        card_number: '4242 4242 4242 4242',
        pledgers: [{ email: 'ann@example.com', name: 'Ann', amount_cents: 10_000 }],
      });
      expect(paid.statusCode, lang).toBe(200);
      const [pledge] = await listPledges(app.services.db, a.accountId, p.id);
      const pledgePage = (await app.server.inject(`/pledge/plg_${pledge!.id}`)).body;
      expect(visibleText(pledgePage), lang).toContain(visibleText(TEXT[lang].pledgeTitle('leader@example.com')).split('leader@example.com')[1]!.trim());
      expect(englishLeft(pledgePage, lang, AREAS, ALLOWED), lang).toEqual([]);
      const leaderResult = (await app.server.inject(new URL(p.payment_url).pathname)).body;
      expect(englishLeft(leaderResult, lang, AREAS, ALLOWED), lang).toEqual([]);
      const missing = await app.server.inject({ url: '/pay/pur_nothing', headers: { 'accept-language': `${LOCALE[lang]},en;q=0.5` } });
      expect(missing.statusCode, lang).toBe(404);
      expect(missing.body, lang).toContain(TEXT[lang].notFoundTitle);
      // The pages drawn without a purchase's route: the 3-D Secure relay, the direct call's refusals, the wait.
      for (const page of [
        challengeRelayPage(relayForm, lang),
        challengeRelayGonePage(lang),
        directPaidPage(lang),
        directRefusedPage(lang, 'detail'),
        confirmingPage(lang, '/status', null, 2),
        pledgeNotFoundPage(lang),
      ]) {
        expect(englishLeft(page, lang, AREAS, ALLOWED), lang).toEqual([]);
      }
    }
  });
});
