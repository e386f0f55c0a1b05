/**
 * The sandbox demo shop (docs/front-end.md) follows the page language as the hosted pages do:
 * `?lang=`, else Accept-Language; its price is formatted in that language, and the purchase its
 * back end creates is in it, so the overlay opens in the shop's language.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html } from '../../src/html/html.ts';
import { DEMO_SHOP_TEXT } from '../../src/sandbox/demo-shop-texts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const page = (url: string, acceptLanguage?: string) => app.server.inject({ method: 'GET', url, headers: acceptLanguage ? { 'accept-language': acceptLanguage } : {} });
const escaped = (text: string) => html`${text}`.toString();

describe('sandbox demo shop', () => {
  it('is in French for a French browser or ?lang=fr: its words, "300,00 €", no English sentence and no docs path', async () => {
    for (const res of [await page('/sandbox/demo-shop', 'fr-FR,fr;q=0.9,en;q=0.5'), await page('/sandbox/demo-shop?lang=fr', 'en-GB')]) {
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<html lang="fr-FR">');
      expect(res.body).toMatch(/<p class="price">300,00\s€<\/p>/);
      expect(res.body).toContain('<h1>Week-end à Lisbonne</h1>');
      expect(res.body).toContain('>Payer en 3 fois</button>');
      expect(res.body).toContain('<a href="/docs">référence de l’API</a>');
      expect(res.body).toContain('href="/sandbox/demo-shop?lang=en"');
      expect(res.body).not.toContain('docs/front-end.md');
      expect(res.body).not.toContain('€300.00');
      // Every English text of the page and of its script is absent (as data-texts holds it: JSON in an attribute).
      const en = DEMO_SHOP_TEXT.en;
      for (const text of [en.title, en.note, en.product, en.payIn3, en.split, en.choose]) expect(res.body).not.toContain(escaped(text));
      for (const text of Object.values(en.script)) expect(res.body).not.toContain(escaped(`:${JSON.stringify(text)}`));
    }
  });

  it('is in English by default and for ?lang=en, with its price as "€300.00"', async () => {
    for (const res of [await page('/sandbox/demo-shop'), await page('/sandbox/demo-shop?lang=en', 'fr-FR')]) {
      expect(res.body).toContain('<html lang="en-GB">');
      expect(res.body).toContain('<p class="price">€300.00</p>');
      expect(res.body).toContain('>Pay in 3x</button>');
      expect(res.body).not.toContain('docs/front-end.md');
    }
  });

  it('creates the purchase in the language of the page the shopper clicked on', async () => {
    const created = await app.server.inject({ method: 'POST', url: '/sandbox/demo-shop/purchases', payload: { kind: 'installments', lang: 'fr' } });
    expect(created.statusCode, created.body).toBe(201);
    const checkout = await app.server.inject(new URL(created.json().payment_url as string).pathname);
    expect(checkout.body).toContain('lang="fr-FR"');
    expect(checkout.body).toContain('Week-end à Lisbonne');
    const english = await app.server.inject({ method: 'POST', url: '/sandbox/demo-shop/purchases', payload: { kind: 'installments' } });
    expect((await app.server.inject(new URL(english.json().payment_url as string).pathname)).body).toContain('Weekend in Lisbon');
  });
});
