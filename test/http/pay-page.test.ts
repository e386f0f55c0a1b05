import { afterAll, beforeAll, expect, it } from 'vitest';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let a: Caller;
beforeAll(async () => {
  app = await startTestApp();
  a = await caller(app);
});
afterAll(() => app.close());

it('payment_url opens a page showing title, amount and merchant, with a strict CSP', async () => {
  const p = (
    await a.post('/api/merchants/v1/purchases', minimalPurchase({ title: 'Weekend <b>in</b> Lisbon', amount: 123_456, products: [{ label: 'Hotel', amount: 123_456, currency: 'EUR' }] }))
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

it('an unknown or malformed link answers a 404 page', async () => {
  for (const uid of ['pur_00000000-0000-4000-8000-000000000000', 'nope']) {
    const res = await app.server.inject(`/pay/${uid}`);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
  }
});
