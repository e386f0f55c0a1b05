import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopperSessions } from '../../src/http/routes/shopper-space/guard.ts';
import { LANGS, LANGUAGE_NAMES, LOCALE } from '../../src/i18n/lang.ts';
import { payForms } from '../../src/pages/shopper-space/pay-forms.ts';
import { codePage, linkSentPage, signInPage, spaceMessagePage } from '../../src/pages/shopper-space/sign-in-pages.ts';
import { SPACE_TEXT } from '../../src/pages/shopper-space/texts.ts';
import type { ShopperIdentity } from '../../src/shopper-space/identity.ts';
import { twoMerchants, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { englishLeft } from '../helpers/words-left.ts';

/**
 * The shopper's space: what a signed-in shopper sees (docs/shopper-space.md#who-sees-what), with
 * two shoppers and two merchants: each sees the purchases they lead or chip in to, at every
 * merchant, and nothing of the other's.
 */
const CARD = '4242 4242 4242 4242';
let app: TestApp;
let a: Caller;
let b: Caller;
/** Bare uuids. */
let annPlan: string;
let bobPot: string;
let bobAtA: string;

async function create(m: Caller, body: Record<string, unknown>): Promise<string> {
  const res = await m.post('/api/merchants/v1/purchases', body);
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { id: string }).id;
}

async function pay(m: Caller, id: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: CARD, ...extra });
  expect(res.statusCode, res.body).toBe(200);
}

beforeAll(async () => {
  app = await startTestApp();
  [a, b] = await twoMerchants(app, ['Shoe Shop', 'Bike Shop']);
  annPlan = await create(a, { title: 'Red shoes', amount: 40_000, merchant_uid: a.offer('INSTALLMENTS', 4), client: { email: 'Ann@example.com' }, language: 'en_GB' });
  await pay(a, annPlan);
  bobPot = await create(b, { title: 'Tandem', amount: 90_000, client: { email: 'bob@example.com' }, language: 'fr_FR' });
  await pay(b, bobPot, { pledgers: [{ email: 'ANN@example.com', amount_cents: 30_000 }] });
  bobAtA = await create(a, { title: 'Blue boots', amount: 15_000, client: { email: 'bob@example.com' } });
});
afterAll(async () => {
  await app?.close();
});

async function as(identity: ShopperIdentity, headers: Record<string, string> = {}) {
  const { token } = await shopperSessions(app.services).create(identity);
  return (url: string) => app.server.inject({ method: 'GET', url, headers: { cookie: `chipin_space=${token}`, ...headers } });
}
const ann: ShopperIdentity = { kind: 'email', value: 'ann@example.com' };
const bob: ShopperIdentity = { kind: 'email', value: 'bob@example.com' };

describe('the list', () => {
  it("shows a shopper every purchase they lead or chip in to, across merchants, and none of another shopper's", async () => {
    const get = await as(ann);
    const list = await get('/space');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('Red shoes');
    expect(list.body).toContain('Shoe Shop');
    expect(list.body).toContain('Tandem');
    expect(list.body).toContain('Bike Shop');
    expect(list.body).toContain('You chip in');
    expect(list.body).not.toContain('Blue boots');

    const bobs = await (await as(bob))('/space');
    expect(bobs.body).toContain('Tandem');
    expect(bobs.body).toContain('Blue boots');
    expect(bobs.body).not.toContain('Red shoes');
  });

  it('a purchase not paid yet is "your purchase", started on its day, not bought; a paid one is bought', async () => {
    const get = await as(bob);
    const list = (await get('/space?lang=en')).body;
    const card = (title: string) => list.split('<li class="card">').find((c) => c.includes(title))!;
    expect(card('Blue boots')).toContain('Your purchase');
    expect(card('Blue boots')).toContain('Started on');
    expect(card('Blue boots')).not.toContain('You bought it');
    expect(card('Blue boots')).not.toContain('Bought on');
    expect(card('Tandem')).toContain('You bought it');
    expect(card('Tandem')).toContain('Bought on');
    const page = (await get(`/space/purchases/pur_${bobAtA}?lang=fr`)).body;
    expect(page).toContain('Votre achat');
    expect(page).toContain('Commencé le');
    expect(page).not.toContain('Vous l’avez acheté');
  });

  it("a purchase whose merchant set no language (Merchant API v1 without one) speaks the browser's; one whose merchant set it keeps it; ?lang= wins over both", async () => {
    const french = await as(bob, { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.5' });
    const unset = (await french(`/space/purchases/pur_${bobAtA}`)).body;
    expect(unset).toMatch(/<html lang="fr[-"]/);
    expect(unset).toContain('Votre achat');
    const set = (await (await as(ann, { 'accept-language': 'fr-FR' }))(`/space/purchases/pur_${annPlan}`)).body;
    expect(set).toMatch(/<html lang="en[-"]/);
    expect((await french(`/space/purchases/pur_${bobAtA}?lang=en`)).body).toMatch(/<html lang="en[-"]/);
  });

  it('shows nothing to a shopper no purchase names', async () => {
    const res = await (await as({ kind: 'email', value: 'carol@example.com' }))('/space');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('There is no purchase for you here yet.');
  });
});

describe('a purchase', () => {
  it("shows its leader a 4x plan: each payment's date, amount and state, the card, the credit's cost and TAEG, the shop, the receipt", async () => {
    const res = await (await as(ann))(`/space/purchases/pur_${annPlan}`);
    expect(res.statusCode).toBe(200);
    const rows = res.body.match(/<tr><td>\d\/4<\/td>/g) ?? [];
    expect(rows).toHaveLength(4);
    expect(res.body).toMatch(/<tr><td>1\/4<\/td>.*?<span class="state">Paid<\/span>/);
    expect(res.body).toMatch(/<tr><td>2\/4<\/td>.*?<span class="state">To come<\/span>/);
    expect(res.body).toMatch(/ending 4242/);
    expect(res.body).toContain('Fixed APR (TAEG)');
    expect(res.body).toContain('id="taeg"');
    expect(res.body).toContain('Fees (total cost of credit)');
    expect(res.body).toContain('Shoe Shop');
    expect(res.body).toContain('<details class="receipt">');
  });

  it("shows a pledger their share, the pot's progress and deadline, in the purchase's language, and never the leader's card", async () => {
    const res = await (await as(ann))(`/space/purchases/pur_${bobPot}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<html lang="fr-FR">');
    expect(res.body).toContain('Votre part');
    expect(res.body).toMatch(/id="share">300,00/);
    expect(res.body).toContain('La cagnotte');
    expect(res.body).toMatch(/id="pot-progress">0,00\s€ sur 300,00\s€/);
    expect(res.body).toContain('id="pot-deadline"');
    expect(res.body).toContain('Payer ma part');
    // No trace of the leader's card, ids aside (a random uuid may well hold the digits 4242).
    expect(res.body.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '')).not.toContain('4242');
    expect(res.body).not.toContain('id="plan"');
  });

  it("answers 404 for another shopper's purchase, at either merchant, as for an unknown or malformed id", async () => {
    const get = await as(ann);
    for (const url of [`/space/purchases/pur_${bobAtA}`, '/space/purchases/pur_00000000-0000-4000-8000-000000000009', '/space/purchases/nonsense']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain('Blue boots');
    }
    expect((await (await as(bob))(`/space/purchases/pur_${annPlan}`)).statusCode).toBe(404);
  });

  it('shows the leader their pot and the friends invited, in English on ?lang=en', async () => {
    const res = await (await as(bob))(`/space/purchases/pur_${bobPot}?lang=en`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<html lang="en-GB">');
    expect(res.body).toContain('0 friends of 1 have paid');
  });
});

describe('receipts', () => {
  it("link every e-mail receipt to the shopper's space, opened on that purchase", async () => {
    const { rows } = await app.services.db.query<{ body: string }>("SELECT body FROM outbound_messages WHERE purchase_id = $1 AND channel = 'email' AND message_key IS NOT NULL", [
      annPlan,
    ]);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.body).toContain(`/space/purchases/pur_${annPlan}`);
  });
});

describe('the space in the six languages', () => {
  const AREAS = ['space', 'pages', 'credit'];

  it("its list, a leader's plan, a pledger's pot, its 404 and its sign-in pages speak each language, with no English left, and the switcher offers the five others", async () => {
    for (const lang of LANGS) {
      const t = SPACE_TEXT[lang];
      const pages: [string, string][] = [];
      const annIn = await as(ann);
      for (const url of ['/space', `/space/purchases/pur_${annPlan}`, `/space/purchases/pur_${bobPot}`]) {
        const res = await annIn(`${url}?lang=${lang}`);
        expect(res.statusCode, `${lang} ${url}`).toBe(200);
        expect(res.body, `${lang} ${url}`).toContain(`<html lang="${LOCALE[lang]}">`);
        for (const other of LANGS) expect(res.body.includes(`hreflang="${other}">${LANGUAGE_NAMES[other]}</a>`), `${lang} ${url}: ${other}`).toBe(other !== lang);
        pages.push([url, res.body]);
      }
      expect(pages[1]![1], lang).toContain(t.planTitle);
      expect(pages[2]![1], lang).toContain(t.potFriends(0, 1));
      const missing = await annIn(`/space/purchases/pur_00000000-0000-4000-8000-000000000009?lang=${lang}`);
      expect(missing.statusCode, lang).toBe(404);
      pages.push(['404', missing.body]);
      // Without ?lang=, the sign-in form speaks the browser's language.
      const signIn = await app.server.inject({ url: '/space/sign-in', headers: { 'accept-language': `${LOCALE[lang]},en;q=0.5` } });
      expect(signIn.body, lang).toContain(`<html lang="${LOCALE[lang]}">`);
      pages.push(
        ['sign-in', signIn.body],
        ['sign-in refused', signInPage(lang, { csrf: 'c', typed: 'x', error: t.identityInvalid })],
        ['link sent', linkSentPage(lang, 15)],
        ['code wrong', codePage(lang, { csrf: 'c', minutes: 10, sent: true, error: t.codeWrong(2) })],
        ['no tries left', codePage(lang, { csrf: 'c', minutes: 10, sent: false, error: t.codeWrong(0) })],
        ['throttled', spaceMessagePage(lang, t.signInTitle, t.throttled(30))],
        ['other browser', spaceMessagePage(lang, t.linkOtherBrowserTitle, t.linkOtherBrowser)],
      );
      // The leader's forms: a refused installment, the rest to repay, the card change, and each outcome.
      const forms = {
        uid: 'pur_x',
        csrf: 'c',
        currency: 'EUR',
        refused: [{ id: 'i', number: 2, amountCents: 10_000, dueDate: '2026-09-01', total: 3, retryOn: '2026-09-05' }],
        repayCents: 20_000,
        cardChange: true,
      };
      for (const [outcome, words] of [
        ...Object.keys(t.pay.done).map((d) => [{ done: d }, t.pay.done[d]] as const),
        ...Object.keys(t.pay.problem).map((p) => [{ problem: p }, t.pay.problem[p]] as const),
      ]) {
        const { top, section } = payForms(lang, { ...forms, ...outcome });
        expect(`${top}`, `${lang} ${JSON.stringify(outcome)}`).toContain(words);
        pages.push([`pay forms ${JSON.stringify(outcome)}`, `${top}${section}`]);
      }
      // The receipts are shown as they were sent, in the language of the e-mail (English for this plan).
      const sent = /<details class="receipt">[\s\S]*?<\/details>/g;
      for (const [name, page] of pages) expect(englishLeft(page.replace(sent, ''), lang, AREAS), `${lang} ${name}`).toEqual([]);
    }
  });
});
