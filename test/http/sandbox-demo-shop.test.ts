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

  it('speaks the six languages: the page in each, its switcher offering the five others, and the purchase it creates in it', async () => {
    const cases: [string, string, string, string][] = [
      ['de-DE,de;q=0.9', 'de-DE', 'Wochenende in Lissabon', '300,00\u00a0€'],
      ['es-ES', 'es-ES', 'Fin de semana en Lisboa', '300,00\u00a0€'],
      ['it-IT', 'it-IT', 'Weekend a Lisbona', '300,00\u00a0€'],
      ['nl-NL', 'nl-NL', 'Weekend in Lissabon', '€\u00a0300,00'],
    ];
    for (const [acceptLanguage, locale, product, price] of cases) {
      const lang = locale.slice(0, 2);
      const res = await page('/sandbox/demo-shop', acceptLanguage);
      expect(res.body, lang).toContain(`<html lang="${locale}">`);
      expect(res.body, lang).toContain(`<h1>${product}</h1>`);
      expect(res.body, lang).toContain(`<p class="price">${price}</p>`);
      expect(res.body, lang).not.toContain(escaped(DEMO_SHOP_TEXT.en.note));
      expect([...res.body.matchAll(/hreflang="(\w+)"/g)].map((m) => m[1]).sort(), lang).toEqual(['de', 'en', 'es', 'fr', 'it', 'nl'].filter((l) => l !== lang));
      const created = await app.server.inject({ method: 'POST', url: '/sandbox/demo-shop/purchases', payload: { kind: 'installments', lang } });
      expect(created.statusCode, created.body).toBe(201);
      const checkout = await app.server.inject(new URL(created.json().payment_url as string).pathname);
      expect(checkout.body, lang).toContain(`lang="${locale}"`);
      expect(checkout.body, lang).toContain(product);
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
