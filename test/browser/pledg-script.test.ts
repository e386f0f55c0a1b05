import { createServer, type Server } from 'node:http';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signHs256, verifyHs256 } from '../../src/delivery/jwt.ts';
import { fixture, jwtFromTexts, payloadText, requestUrl, type Target } from '../compat/fixtures.ts';
import { caller, type Caller } from '../helpers/api.ts';
import type { TestApp } from '../helpers/app.ts';
import { hasBrowser, launchBrowser, startServedApp } from '../helpers/browser.ts';

/**
 * The Pledg script (/ecard-plugin/staging/plugin.min.js) in real Chromium, called as the shop
 * plugins' pages call it, each paying one kind of offer from the sandbox: a refused card first
 * (4000 0000 0000 0002: nothing raised, the frame stays), then 4242 → onSuccess with the result
 * and a JWT that verifies with the offer's secret. The settings are test/compat's fixtures of
 * what each plugin sends. Chipin listens on 127.0.0.1, the shop on 127.0.0.2 (another site: the
 * frame is a genuine third-party frame). Each callback first records its arguments
 * (`__record`), then does what the plugin's template does.
 */
let app: TestApp & { base: string };
let browser: Browser;
let a: Caller;
let shopServer: Server;
let shop: string;
/** The shop's pages by path (set by each test), and the form posts it received. */
const pages = new Map<string, string>();
const posted: { path: string; body: string }[] = [];

type Recorded = { kind: string; args: unknown[] };

const script = () => `<script src="${app.base}/ecard-plugin/staging/plugin.min.js"></script>`;
const target = (type: 'SHARED' | 'INSTALLMENTS' | 'DEFERRED'): Target => ({ merchantUid: a.offer(type), shopOrigin: shop });
const secretOf = (type: 'SHARED' | 'INSTALLMENTS' | 'DEFERRED') => a.merchant.offers.find((o) => o.type === type)!.secret;
const signed = (plugin: 'magento' | 'prestashop1.7', type: 'INSTALLMENTS' | 'DEFERRED') => {
  const f = fixture(plugin, 'script-settings-signed');
  return jwtFromTexts(f.jwt!.header, payloadText(f, target(type)), secretOf(type));
};

/** magento view/frontend/templates/checkout/pay.phtml#L6-L26: the block's data spread with the container and callbacks, then button.click(). */
function magentoPage(signature: string): string {
  return `<!doctype html><meta charset="utf-8"><title>Magento pay</title>${script()}
<div id="container_pledg_form"></div>
<button id="trigger_pledg_form" style="display: none;"></button>
<script>
  let button = document.querySelector("#trigger_pledg_form");
  new Pledg(button, {
    ...${JSON.stringify({ signature })},
    ...{
      containerElement: document.querySelector('#container_pledg_form'),
      onSuccess: function () { __record('success', ...arguments); window.location.replace('/checkout/onepage/success'); },
      onError: function (error) { __record('error', ...arguments); window.location.replace('/pledg/checkout/cancel' + '?pledg_error=' + encodeURI(error.message)); },
      onCancel: function () { __record('cancel'); window.location.replace('/pledg/checkout/cancel'); },
    }
  });
  button.click();
</script>`;
}

/**
 * prestashop1.7 views/templates/front/iframe.tpl#L3-L99 with a secret (signature, unsigned
 * paymentNotificationUrl, showCloseButton false), and assets/js/pledg.js#L3-L4's click once the
 * document is ready (jQuery's ready: DOMContentLoaded here; `$.ajax` of addLog is a stub).
 */
function prestashopPage(signature: string): string {
  const settings = fixture('prestashop1.7', 'script-settings-signed').script_settings!;
  return `<!doctype html><meta charset="utf-8"><title>PrestaShop</title>
<form id="installment-form" method="POST" action="/module/pledg/validation">
  <input type="button" style="display:none;" id="pledgButton"/>
  <div class="payment_module pledg" id="payment_pledg"><div id="installment-container" class="pledgContainer"></div></div>
</form>
${script()}
<script>
  var $ = { ajax: function () {} };
  var isError = false, messageError = '', isOpen = false;
  function getPledgForm() { return document.querySelector("#installment-form") }
  function getPledgContainer() { return document.querySelector("#installment-container") }
  function addHiddenInput(form, label, value) {
    var hiddenInput = document.createElement("input");
    hiddenInput.setAttribute("type", "hidden"); hiddenInput.setAttribute("name", label); hiddenInput.setAttribute("value", value);
    form.appendChild(hiddenInput);
  }
  function addLog(msg, typeLog, classObject, idObject) { $.ajax({ url: '/module/pledg/log', method: 'POST', data: { message: msg } }); }
  var pledg = new Pledg(document.querySelector("#pledgButton"), {
    containerElement: getPledgContainer(),
    paymentNotificationUrl: ${JSON.stringify(String(settings.paymentNotificationUrl).replace('https://shop.example', shop))},
    signature: ${JSON.stringify(signature)},
    showCloseButton: false,
    onSuccess: function (resultpayment) {
      __record('success', ...arguments);
      var form = getPledgForm();
      addHiddenInput(form, "merchantUid", ${JSON.stringify(a.offer('DEFERRED'))});
      addHiddenInput(form, "reference", "PLEDG_57_1767225600");
      addHiddenInput(form, "transaction", resultpayment.purchase.reference);
      var rp_string = JSON.stringify(resultpayment);
      addLog('Pledg Form Success Paid. Return value : ' . rp_string, 'success', 'PledgPayment', 1);
      form.submit();
    },
    onError: function (error) { __record('error', ...arguments); isError = true; messageError = error.message; },
    onOpen: function () { __record('open'); isOpen = true; }
  });
  document.addEventListener('DOMContentLoaded', function () { document.querySelector('#pledgButton').click(); });
</script>`;
}

/**
 * Two instances for one order: the integration guide's popin ("HTML" and "JavaScript" sections:
 * no container, configure on the e-mail's blur, the merchant's `.pledg-iframe-overlay` style),
 * and the inline frame with the shop's own button (externalCheckoutValidation,
 * onCheckoutFormStatusChange, showCloseButton false), as the provider's earlier WooCommerce
 * gateway put it in its payment box. Same offer, reference and amount: one purchase.
 */
function guidePage(): string {
  const settings = {
    merchantUid: a.offer('SHARED'),
    amountCents: 30550,
    title: 'STAY IN LONDON',
    subtitle: 'Fly + Hotel 2 nights (3 rooms)',
    reference: 'order_123',
    firstName: 'Gaëlle',
    lastName: 'Guéguen',
    address: { street: '2, rue Frézier', city: 'Brest', zipcode: '29200', stateProvince: 'Bretagne', country: 'FR' },
  };
  const record = (p: string) =>
    ['Success', 'Error', 'Open', 'Close', 'Cancel'].map((k) => `on${k}: function () { __record('${p}${k.toLowerCase()}', ...arguments); }`).join(',\n    ');
  return `<!doctype html><meta charset="utf-8"><title>Guide shop</title>
<style>.pledg-iframe-overlay { background: rgba(255, 255, 255, 0.3); }</style>
<input type="text" name="customer-email" id="customer-email" value="sales@example.com">
<button id="pledg-button" type="button">Split the payment</button>
<div id="pledg-inline"></div>
<button id="place-order" type="button" disabled>Place order</button>
${script()}
<script>
  var button = document.querySelector("#pledg-button");
  var pledgInstance = new Pledg(button, Object.assign(${JSON.stringify(settings)}, {
    email: document.querySelector("#customer-email").value,
    ${record('')}
  }));
  document.querySelector("#customer-email").addEventListener("blur", function () {
    pledgInstance.configure({ email: document.querySelector("#customer-email").value });
  });
  var placeOrder = document.querySelector('#place-order');
  var inline = new Pledg(placeOrder, Object.assign(${JSON.stringify(settings)}, {
    email: 'lea@example.com',
    containerElement: document.querySelector('#pledg-inline'),
    externalCheckoutValidation: true,
    showCloseButton: false,
    onCheckoutFormStatusChange: function (readiness) { placeOrder.disabled = !readiness; },
    ${record('inline:')}
  }));
  // The shop's button opens the frame, then validates the hosted form.
  placeOrder.addEventListener('click', function () { inline.validateCheckout(); });
</script>`;
}

beforeAll(async () => {
  if (!hasBrowser) return;
  [app, browser] = await Promise.all([startServedApp(), launchBrowser()]);
  a = await caller(app);
  shopServer = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'POST') posted.push({ path: url.pathname, body });
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages.get(url.pathname) ?? `<!doctype html><title>${url.pathname}</title><h1>${url.pathname}</h1>`);
    });
  });
  await new Promise<void>((resolve) => shopServer.listen(0, '127.0.0.2', resolve));
  shop = `http://127.0.0.2:${(shopServer.address() as { port: number }).port}`;
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  shopServer?.close();
});

/** A page whose callbacks' arguments land in the returned list. */
async function shopPage(path: string): Promise<{ page: Page; events: Recorded[] }> {
  const page = await browser.newPage({ viewport: { width: 1024, height: 900 }, locale: 'en-GB' });
  const events: Recorded[] = [];
  await page.exposeFunction('__record', (kind: string, ...args: unknown[]) => void events.push({ kind, args }));
  await page.goto(`${shop}${path}`);
  return { page, events };
}

const FRAME = 'iframe[title="Chipin secure payment"]';

async function fillCard(f: FrameLocator | Page, number: string): Promise<void> {
  await f.locator('#holder_name').fill('Léa Martin');
  await f.locator('#card_number').fill(number);
  await f.locator('#card_expiry').fill('12/30');
  await f.locator('#card_cvc').fill('123');
}

/** The refused card, then 4242, each submitted by `submit`; the refusal is shown in the frame. */
async function refusedThenPaid(f: FrameLocator | Page, submit: () => Promise<void>): Promise<void> {
  await fillCard(f, '4000 0000 0000 0002');
  await submit();
  await f.locator('#error-summary').waitFor();
  await fillCard(f, '4242 4242 4242 4242');
  await submit();
}

/** onSuccess's (result, jwt): the result names the purchase, the JWT verifies with the offer's secret and says the same. */
function expectPaid(success: Recorded | undefined, secret: string, reference: string): string {
  expect(success?.kind).toMatch(/success$/);
  const [result, jwt] = success!.args as [{ transaction: { status: string }; purchase: { uid: string; reference: string } }, string];
  expect(result).toMatchObject({ transaction: { status: 'completed', error: null }, purchase: { reference, uid: expect.stringMatching(/^pur_/) } });
  expect(verifyHs256(jwt, secret)).toMatchObject({ purchase: { uid: result.purchase.uid, reference }, transaction: { status: 'completed' } });
  return result.purchase.uid;
}

describe.runIf(hasBrowser)('the Pledg script on the plugins’ pages', () => {
  it("magento's pay page (signed settings, container, button.click()): a 3x purchase, the refusal raises nothing, 4242 → onSuccess, then the shop's success page", async () => {
    pages.set('/magento', magentoPage(signed('magento', 'INSTALLMENTS')));
    const { page, events } = await shopPage('/magento');
    const frame = page.frameLocator(`#container_pledg_form ${FRAME}`);
    await refusedThenPaid(frame, () => frame.locator('#pay-button').click());
    await page.waitForURL(`${shop}/checkout/onepage/success`);
    await expect.poll(() => events.map((e) => e.kind)).toEqual(['success']);
    expectPaid(events[0], secretOf('INSTALLMENTS'), 'order_000000123');
    await page.close();
  });

  it("prestashop's iframe page (signed, container, no close button, clicked when ready): a deferred purchase; onOpen, then onSuccess, the form posts the reference to the shop", async () => {
    pages.set('/prestashop', prestashopPage(signed('prestashop1.7', 'DEFERRED')));
    const { page, events } = await shopPage('/prestashop');
    const frame = page.frameLocator(`#installment-container ${FRAME}`);
    await frame.locator('#card_number').waitFor();
    await expect(page.locator('#installment-container button').count()).resolves.toBe(0);
    await refusedThenPaid(frame, () => frame.locator('#pay-button').click());
    await page.waitForURL(`${shop}/module/pledg/validation`);
    await expect.poll(() => events.map((e) => e.kind)).toEqual(['open', 'success']);
    expectPaid(events[1], secretOf('DEFERRED'), 'PLEDG_57_1767225600');
    expect(new URLSearchParams(posted.find((p) => p.path === '/module/pledg/validation')!.body).get('transaction')).toBe('PLEDG_57_1767225600');
    await page.close();
  });

  it("the guide's popin: styled by the shop, × cancels; the inline frame of the same order is paid with the shop's own button (externalCheckoutValidation); bad settings raise invalid_request_error without a frame, a bad signature once /purchase refused it", async () => {
    pages.set('/guide', guidePage());
    const { page, events } = await shopPage('/guide');
    await page.locator('#customer-email').fill('lea@example.com');
    await page.locator('#customer-email').blur();
    await page.getByRole('button', { name: 'Split the payment' }).click();
    const dialog = page.getByRole('dialog', { name: 'Payment' });
    await dialog.waitFor();
    await expect(page.locator('.pledg-iframe-overlay').evaluate((n) => getComputedStyle(n).backgroundColor)).resolves.toBe('rgba(255, 255, 255, 0.3)');
    await page.frameLocator(FRAME).locator('#card_number').waitFor();
    // The page around the popin is inert while it is open.
    await expect(page.locator('#place-order').evaluate((n) => n.closest('[inert]') !== null)).resolves.toBe(true);
    await page.getByRole('button', { name: 'Close payment' }).click();
    await expect.poll(() => events.map((e) => e.kind)).toEqual(['open', 'close', 'cancel']);
    await expect(dialog.count()).resolves.toBe(0);

    // The shop's button opens the inline frame; the hosted page hides its own pay button and the
    // shop's button follows the form's readiness.
    await page.locator('#place-order').evaluate((b) => ((b as HTMLButtonElement).disabled = false));
    await page.locator('#place-order').click();
    const frame = page.frameLocator(`#pledg-inline ${FRAME}`);
    await frame.locator('#card_number').waitFor();
    await expect.poll(() => frame.locator('#pay-button').isHidden()).toBe(true);
    await expect.poll(() => page.locator('#place-order').isDisabled()).toBe(true);
    await refusedThenPaid(frame, async () => {
      await expect.poll(() => page.locator('#place-order').isEnabled()).toBe(true);
      await page.locator('#place-order').click();
    });
    await expect.poll(() => events.length).toBe(6);
    expect(events.map((e) => e.kind)).toEqual(['open', 'close', 'cancel', 'inline:open', 'inline:close', 'inline:success']);
    const uid = expectPaid(events[5], secretOf('SHARED'), 'order_123');
    await expect(page.locator('#pledg-inline iframe').count()).resolves.toBe(0);
    // The popin's purchase was reused (one order, one purchase), with the e-mail set by configure.
    expect((await a.get(`/api/merchants/v1/purchases/${uid.slice(4)}`)).json()).toMatchObject({ client: { email: 'lea@example.com' } });
    const same = await app.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM purchases WHERE ref = 'order_123' AND account_id = $1", [a.accountId]);
    expect(same.rows[0]!.n).toBe(1);

    // Settings refused before anything opens, and a signature /purchase refuses (the frame closes).
    const forged = signHs256({ data: { merchantUid: a.offer('SHARED'), amountCents: 30550, email: 'lea@example.com', title: 'x' } }, 'not the offer secret');
    const problems = await page.evaluate(
      async ({ merchantUid, forged }) => {
        const seen: unknown[] = [];
        const frames = () => document.querySelectorAll('iframe').length;
        const b = document.createElement('button');
        document.body.append(b);
        new Pledg(b, { merchantUid: 'mer_uid', amountCents: 100, onError: (e: unknown) => seen.push(e) });
        b.click();
        new Pledg(document.createElement('button'), { merchantUid, amountCents: '30.5', onError: (e: unknown) => seen.push(e) });
        await new Promise((r) => setTimeout(r, 10));
        const before = frames();
        const c = document.createElement('div');
        document.body.append(c);
        const d = document.createElement('button');
        await new Promise<void>((resolve) => {
          new Pledg(d, { signature: forged, containerElement: c, onError: (e: unknown) => (seen.push(e), resolve()) });
          d.click();
        });
        return { seen, before, after: frames() };
      },
      { merchantUid: a.offer('SHARED'), forged },
    );
    expect(problems.seen).toEqual([
      { type: 'invalid_request_error', message: 'The provided property merchantUid is invalid' },
      { type: 'invalid_request_error', message: 'amountCents must be a whole number of cents (a fraction of a cent is not rounded)' },
      { type: 'invalid_request_error', message: expect.stringContaining('signature') },
    ]);
    expect([problems.before, problems.after]).toEqual([0, 0]);
    await page.close();
  });

  it("woocommerce's redirect to /purchase (the direct call, a new page): the refusal shown, 4242 → back to redirectUrl with the signed result", async () => {
    const page = await browser.newPage({ viewport: { width: 1024, height: 900 }, locale: 'en-GB' });
    await page.goto(`${app.base}${requestUrl(fixture('woocommerce', 'direct-call-query'), target('INSTALLMENTS'), secretOf('INSTALLMENTS'))}`);
    await refusedThenPaid(page, () => page.locator('#pay-button').click());
    await page.waitForURL((u) => u.origin === shop && u.pathname === '/checkout/order-received/1234/');
    const back = new URL(page.url());
    expect(back.searchParams.get('key')).toBe('wc_order_Ab12Cd34Ef56');
    expect(verifyHs256(back.searchParams.get('result')!, secretOf('INSTALLMENTS'))).toMatchObject({
      purchase: { reference: 'Pledg_1234_1767225600', uid: back.searchParams.get('purchase_uid') },
      transaction: { status: 'completed' },
    });
    // What WooCommerce's own return reads: pledg_result, the result with its signature.
    expect(JSON.parse(back.searchParams.get('pledg_result')!)).toMatchObject({ purchase: { reference: 'Pledg_1234_1767225600' }, signature: back.searchParams.get('result') });
    await page.close();
  });
});

declare global {
  // The script's global, as the merchant pages see it.
  const Pledg: new (button: Element, settings: Record<string, unknown>) => unknown;
}
