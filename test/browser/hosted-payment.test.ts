import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { hasBrowser, launchBrowser, startServedApp } from '../helpers/browser.ts';

/** The shop sends its client's name: the pot's checkout then asks the leader for none (docs/hosted-payment.md#the-leaders-name). */
const LEADER = { email: 'leader@example.com', first_name: 'Léa', last_name: 'Martin' };

let app: TestApp & { base: string };
let browser: Browser;
let page: Page;
let a: Caller;

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
  a = await caller(app);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});
beforeEach(async () => {
  if (!hasBrowser) return;
  // A phone-sized viewport: shoppers pay on their phones.
  page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'en-GB' });
});
afterEach(() => page?.close());

async function newPurchase(over: Record<string, unknown> = {}): Promise<{ id: string; payment_url: string }> {
  const res = await a.post(
    '/api/merchants/v1/purchases',
    minimalPurchase({ amount: 9_000, title: 'Weekend in Lisbon', client: LEADER, callback_url: `${app.base}/healthz`, ...over }),
  );
  expect(res.statusCode).toBe(201);
  return res.json();
}

async function fillCard(p: Page, number: string) {
  await p.getByLabel('Cardholder name').fill('Léa Martin');
  await p.getByLabel('Card number').fill(number);
  await p.getByLabel('Expiry date').fill('12/30');
  await p.getByLabel('CVC').fill('123');
}

const state = async (id: string) => (await a.get(`/api/merchants/v1/purchases/${id}`)).json().state as string;
const pledgeUrls = async (id: string) =>
  (await app.services.db.query<{ id: string }>('SELECT id FROM pledges WHERE purchase_id = $1 ORDER BY position', [id])).rows.map((r) => `${app.base}/pledge/plg_${r.id}`);

describe.runIf(hasBrowser)('hosted payment in Chromium', () => {
  it('an expiry the server would refuse is named before anything is sent, so the card number and CVC stay typed', async () => {
    const p = await newPurchase({ merchant_uid: a.offer('INSTALLMENTS', 3) });
    await page.goto(p.payment_url);
    const posts: string[] = [];
    page.on('request', (r) => void (r.method() === 'POST' && posts.push(r.url())));
    await fillCard(page, '4242 4242 4242 4242');
    await page.getByLabel('Expiry date').fill('13/30');
    await page.getByRole('button', { name: /^Pay / }).click();
    const error = page.locator('#card_expiry_error');
    await error.waitFor();
    expect(await error.textContent()).toBe('Enter the expiry date as MM/YY, with a month from 01 to 12.');
    expect(posts).toEqual([]);
    await expect(page.getByLabel('Card number').inputValue()).resolves.toBe('4242 4242 4242 4242');
    await expect(page.getByLabel('CVC').inputValue()).resolves.toBe('123');
    expect(await page.getByLabel('Expiry date').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('card_expiry');
    // Corrected, it pays.
    await page.getByLabel('Expiry date').fill('12/30');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(/\/healthz\?purchase_uid=pur_.*&state=LEADER_PROCESSED/);
  });

  it('without script, an expiry the server refused is named above its input while the expiry and CVC inputs stay side by side and level', async () => {
    const p = await newPurchase({ merchant_uid: a.offer('INSTALLMENTS', 3) });
    const noScript = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-GB', javaScriptEnabled: false });
    try {
      const plain = await noScript.newPage();
      await plain.goto(p.payment_url);
      await fillCard(plain, '4242 4242 4242 4242');
      await plain.getByLabel('Expiry date').fill('13/30');
      await plain.getByRole('button', { name: /^Pay / }).click();
      await plain.locator('#card_expiry_error').waitFor();
      const expiry = (await plain.getByLabel('Expiry date').boundingBox())!;
      const cvc = (await plain.getByLabel('CVC').boundingBox())!;
      expect(cvc.y).toBe(expiry.y);
      expect(cvc.x).toBeGreaterThan(expiry.x + expiry.width);
      // The card's own fields are never sent back to the page; the server says so by asking again.
      await expect(plain.getByLabel('Card number').inputValue()).resolves.toBe('');
    } finally {
      await noScript.close();
    }
  });

  it('the leader pays with 4242 and invites two friends; both pay on their pages; the purchase is SUCCESSFUL', async () => {
    const p = await newPurchase();
    await page.goto(p.payment_url);
    await expect(page.getByRole('heading', { name: 'Weekend in Lisbon' }).isVisible()).resolves.toBe(true);
    await page.locator('#pledger_name_0').fill('Ann');
    await page.locator('#pledger_email_0').fill('ann@example.com');
    await page.locator('#pledger_name_1').fill('Bob');
    await page.locator('#pledger_email_1').fill('bob@example.com');
    await page.getByRole('button', { name: 'Split evenly' }).click();
    // 90.00 split in three: 30.00 each, live.
    await expect(page.locator('#pledger_amount_0').inputValue()).resolves.toBe('30.00');
    await expect(page.locator('#leader-share').textContent()).resolves.toBe('€30.00');
    await fillCard(page, '4242 4242 4242 4242');
    await expect(page.locator('#pay-button').textContent()).resolves.toBe('Pay €30.00');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(/\/healthz\?purchase_uid=pur_.*&state=LEADER_PROCESSED/);
    expect(await state(p.id)).toBe('LEADER_PROCESSED');

    const [ann, bob] = await pledgeUrls(p.id);
    await page.goto(ann!);
    await expect(page.getByRole('heading', { name: /invites you to chip in/ }).isVisible()).resolves.toBe(true);
    await fillCard(page, '4242 4242 4242 4242');
    await page.getByRole('button', { name: 'Pay €30.00' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('Your share is paid');
    await page.goto(bob!);
    await fillCard(page, '4242424242424242');
    await page.getByRole('button', { name: /^Pay / }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('Your share is paid');
    expect(await state(p.id)).toBe('SUCCESSFUL');
  });

  it('live validation refuses shares that leave the leader nothing, and announces it', async () => {
    const p = await newPurchase();
    await page.goto(p.payment_url);
    await page.locator('#pledger_email_0').fill('ann@example.com');
    await page.locator('#pledger_amount_0').fill('90');
    // Checked when the field is left, not on every keystroke.
    await expect(page.locator('#shares-error').isHidden()).resolves.toBe(true);
    await page.keyboard.press('Tab');
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/must leave you a share/);
    await expect(page.locator('#pay-button').isDisabled()).resolves.toBe(true);
    await page.locator('#pledger_amount_0').fill('40');
    await page.keyboard.press('Tab');
    await expect(page.locator('#pay-button').isEnabled()).resolves.toBe(true);
    await expect(page.locator('#leader-share').textContent()).resolves.toBe('€50.00');
  });

  it('a declined card shows a clear message and lets the leader try again with a good one', async () => {
    const p = await newPurchase();
    await page.goto(p.payment_url);
    await fillCard(page, '4000 0000 0000 0002');
    await page.getByRole('button', { name: /^Pay / }).click();
    await expect(page.getByRole('alert').first().textContent()).resolves.toMatch(/Your card was declined.*2 attempts left/);
    expect(await state(p.id)).toBe('INITIALIZED');
    await fillCard(page, '4242 4242 4242 4242');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(/state=SUCCESSFUL/);
    expect(await state(p.id)).toBe('SUCCESSFUL');
  });

  it('3-D Secure: completing the challenge pays; failing it leaves the purchase payable', async () => {
    const ok = await newPurchase();
    await page.goto(ok.payment_url);
    await fillCard(page, '4000 0000 0000 3220');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('button', { name: 'Complete authentication' }).click();
    await page.waitForURL(/state=SUCCESSFUL/);
    expect(await state(ok.id)).toBe('SUCCESSFUL');

    const ko = await newPurchase();
    await page.goto(ko.payment_url);
    await fillCard(page, '4000 0000 0000 3220');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('button', { name: 'Fail authentication' }).click();
    await expect(page.getByRole('alert').first().textContent()).resolves.toMatch(/authentication with your bank failed/);
    expect(await state(ko.id)).toBe('INITIALIZED');
  });

  it("at the deadline with one friend unpaid the leader is charged the rest; the late friend's page says the pot is closed", async () => {
    const p = await newPurchase();
    await page.goto(p.payment_url);
    await page.locator('#pledger_email_0').fill('ann@example.com');
    await page.locator('#pledger_amount_0').fill('20');
    await page.locator('#pledger_email_1').fill('bob@example.com');
    await page.locator('#pledger_amount_1').fill('20');
    await fillCard(page, '4242 4242 4242 4242');
    await page.getByRole('button', { name: 'Pay €50.00' }).click();
    await page.waitForURL(/state=LEADER_PROCESSED/);
    const [ann, bob] = await pledgeUrls(p.id);
    await page.goto(ann!);
    await fillCard(page, '4242 4242 4242 4242');
    await page.getByRole('button', { name: 'Pay €20.00' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('Your share is paid');

    expect((await a.post('/api/sandbox/clock', { advance_seconds: 49 * 3600 })).statusCode).toBe(200);
    const v1 = (await a.get(`/api/merchants/v1/purchases/${p.id}`)).json();
    expect(v1.state).toBe('SUCCESSFUL');
    expect(v1.comment).toContain('the leader paid the remaining 20.00 EUR');
    await page.goto(bob!);
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('This pot is closed');
    await expect(page.getByRole('button', { name: /^Pay / }).count()).resolves.toBe(0);
  });

  it('French pages: labels, amounts and messages in French', async () => {
    const link = await a.post(`/api/merchants/${a.offer('SHARED')}/purchase_link`, {
      data: { title: 'Vélo', amountCents: 12_000, email: 'lea@example.com', language: 'fr_FR', firstName: 'Léa' },
    });
    const fr = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'fr-FR' });
    try {
      await fr.goto(link.json().url);
      await expect(fr.getByLabel('Numéro de carte').isVisible()).resolves.toBe(true);
      await expect(fr.getByLabel('Date d’expiration').isVisible()).resolves.toBe(true);
      await expect(fr.locator('#pay-button').textContent()).resolves.toBe('Payer 120,00\u00a0€');
      await fr.getByLabel('Nom du titulaire').fill('Léa Martin');
      await fr.getByLabel('Numéro de carte').fill('4000 0000 0000 9995');
      await fr.getByLabel('Date d’expiration').fill('12/30');
      await fr.getByLabel('Cryptogramme (CVC)').fill('123');
      await fr.getByRole('button', { name: /^Payer / }).click();
      await expect(fr.getByRole('alert').first().textContent()).resolves.toMatch(/Provision insuffisante/);
    } finally {
      await fr.close();
    }
  });
});

describe.runIf(hasBrowser)('front-end result (back mode)', () => {
  it('the redirect carries the result as a JWT signed with the offer secret, and an embedding merchant page receives it by postMessage', async () => {
    const { createServer } = await import('node:http');
    const { verifyHs256 } = await import('../../src/delivery/jwt.ts');
    // The merchant's own site on another loopback port: a page that embeds ours and keeps the message.
    const merchant = createServer((req, res) => {
      const src = new URL(req.url!, 'http://x').searchParams.get('src') ?? '';
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><title>shop</title><script>window.__messages=[];addEventListener('message',function(e){window.__messages.push({origin:e.origin,data:e.data})});</script><iframe src="${src}"></iframe>`,
        );
    });
    await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
    const shop = `http://127.0.0.1:${(merchant.address() as { port: number }).port}`;
    try {
      const p = await newPurchase({ callback_url: `${shop}/done`, ref: 'ORDER-FR-1' });
      await page.goto(p.payment_url);
      await fillCard(page, '4242 4242 4242 4242');
      await page.getByRole('button', { name: /^Pay / }).click();
      await page.waitForURL(/\/done\?/);
      const url = new URL(page.url());
      expect(url.searchParams.get('state')).toBe('SUCCESSFUL');
      const secret = a.merchant.offers.find((o) => o.type === 'SHARED')!.secret;
      const claims = verifyHs256(url.searchParams.get('result')!, secret);
      expect(claims).toMatchObject({ purchase: { uid: `pur_${p.id}`, reference: 'ORDER-FR-1', meta_data: {} }, transaction: { status: 'completed', sandbox: true, error: null } });

      await page.goto(`${shop}/embed?src=${encodeURIComponent(p.payment_url)}`);
      await page.waitForFunction(() => (window as unknown as { __messages: unknown[] }).__messages.length > 0);
      const [message] = await page.evaluate(() => (window as unknown as { __messages: { origin: string; data: { type: string; jwt: string } }[] }).__messages);
      expect(message!.origin).toBe(app.base);
      expect(message!.data.type).toBe('chipin:result');
      expect(verifyHs256(message!.data.jwt, secret)).toMatchObject({ purchase: { uid: `pur_${p.id}` } });
    } finally {
      merchant.close();
    }
  });
});
