/**
 * The key scenario, per plugin (test/compat/README.md): the checkout started exactly as the plugin
 * starts it (its fixture replayed byte for byte), a card refused on the hosted page, then a good
 * one. The shop's handler (plugins/*.ts, running at a real HTTP receiver) must receive ONE outcome
 * it takes as paid, and nothing before it that it would answer with an error or take as a
 * cancellation. docs/migrating.md.
 */
import { describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/app.ts';
import { CARDS } from '../use-cases/support.ts';
import { compatBed, type OfferKind } from './bed.ts';
import { fixture, type Fixture } from './fixtures.ts';
import { openPage, submitCard } from './hosted-page.ts';
import { MagentoShop } from './plugins/magento.ts';
import { PrestaShopShop } from './plugins/prestashop.ts';
import { returnStatus, SyliusShop } from './plugins/sylius.ts';
import { WooCommerceShop } from './plugins/woocommerce.ts';

const bed = compatBed();
/** What the shop's handler saw, for the failure message: each status sent, the answer, the effect. */
const seen = (handled: { body: string; answer: { status: number; body: string }; effect: string }[]) =>
  handled.map((h) => `${String((JSON.parse(h.body) as { status?: string }).status)} → ${h.answer.status} ${h.answer.body.slice(0, 80)} (${h.effect})`).join('\n');
const offerOf = (kind: OfferKind) => bed.offer(kind);
const serve = (h: Parameters<typeof bed.serve>[0]) => bed.serve(h);

describe(`a refused card then a good one: one final outcome each plugin's handler accepts as paid (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  async function checkout(f: Fixture, kind: OfferKind) {
    const start = await bed.replay(f, kind);
    expect(start.statusCode, start.body).toBe(303);
    const page = await openPage(bed.app, String(start.headers.location));
    const refused = await submitCard(bed.app, page, CARDS.declined);
    // The page again, with the refusal and the card form: the shopper may try another card.
    expect(refused.statusCode).toBe(402);
    expect(refused.body).toContain('name="card_number"');
    const paid = await submitCard(bed.app, { ...page, body: refused.body }, CARDS.ok);
    expect(paid.statusCode).toBe(303);
    await bed.deliverAll();
    return { location: String(paid.headers.location) };
  }

  it('WooCommerce (direct call, signed): the REST controller answers 200 once and the order is processing', async () => {
    const f = fixture('woocommerce', 'direct-call-signed');
    const shop = new WooCommerceShop('1234', offerOf('INSTALLMENTS').secret);
    serve((r) => shop.handle(r.path, r.headers['content-type'], r.body));
    await checkout(f, 'INSTALLMENTS');
    expect(
      shop.handled.map((h) => [h.answer.status, h.effect]),
      seen(shop.handled),
    ).toEqual([[200, 'paid']]);
    expect(shop.status).toBe('processing');
  });

  it('Magento 2 (script settings, signed): the IPN invoices the order, nothing cancelled it before', async () => {
    const f = fixture('magento', 'script-settings-signed');
    const shop = new MagentoShop('000000123', offerOf('INSTALLMENTS').secret);
    serve((r) => shop.handle(r.path, r.body));
    await checkout(f, 'INSTALLMENTS');
    expect(
      shop.handled.map((h) => [h.answer.status, h.effect]),
      seen(shop.handled),
    ).toEqual([[200, 'paid']]);
    expect(shop.state).toBe('processing');
  });

  it('PrestaShop 1.7 (script settings, signed, notification URL unsigned beside them): one signed notification, its amount query kept, the order paid', async () => {
    const f = fixture('prestashop1.7', 'script-settings-signed');
    const shop = new PrestaShopShop(57, 6980, offerOf('INSTALLMENTS').secret);
    serve((r) => shop.handle(r.path, r.body));
    await checkout(f, 'INSTALLMENTS');
    expect(
      shop.handled.map((h) => [h.answer.status, h.effect]),
      seen(shop.handled),
    ).toEqual([[200, 'paid']]);
    expect(JSON.parse(shop.handled[0]!.body)).toMatchObject({ status: 'completed' });
  });

  it('Sylius (direct call, signed): the standard processor completes the payment, and the return marks it captured', async () => {
    const f = fixture('sylius', 'direct-call-signed');
    const shop = new SyliusShop('PLEDGBYSOFINCO_42_57', offerOf('INSTALLMENTS').secret, () => Math.floor(Date.now() / 1000));
    serve((r) => shop.handle(r.path, r.body));
    const { location } = await checkout(f, 'INSTALLMENTS');
    expect(
      shop.handled.map((h) => [h.answer.status, h.effect]),
      seen(shop.handled),
    ).toEqual([[200, 'completed']]);
    const back = new URL(location, 'http://chipin.invalid');
    expect(back.pathname).toBe('/fr_FR/order/after-pay');
    expect(returnStatus(back.searchParams)).toBe('captured');
  });
});
