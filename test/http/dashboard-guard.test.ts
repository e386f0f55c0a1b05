import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, newMerchant, startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

// Each test guesses from its own address, so that one test's failures never spend another's budget.
const get = (url: string, authorization: string, remoteAddress: string) => app.server.inject({ method: 'GET', url, headers: { authorization }, remoteAddress });
const backoffice = (auth: string, ip: string) => get('/api/backoffice/webhook', auth, ip);
const inbox = (auth: string, ip: string) => get('/sandbox/inbox', auth, ip);

describe('dashboard sign-in: one failure budget for every route that accepts dashboard credentials', () => {
  it('failures for one user spread over the back office and the sandbox inbox exhaust one budget of 5', async () => {
    const victim = await newMerchant(app);
    const ip = '192.0.2.1';
    for (let i = 0; i < 3; i++) expect((await backoffice(basic(victim.email, `guess-${i}`), ip)).statusCode).toBe(401);
    for (let i = 3; i < 5; i++) expect((await inbox(basic(victim.email, `guess-${i}`), ip)).statusCode).toBe(401);

    // Even the right password is refused until the window ends, on both routes, each in its own format.
    const api = await backoffice(basic(victim.email, victim.password), ip);
    expect(api.statusCode).toBe(429);
    expect(Number(api.headers['retry-after'])).toBeGreaterThan(0);
    expect(api.json().error.app_error).toBe('too_many_requests');
    const page = await inbox(basic(victim.email.toUpperCase(), victim.password), '192.0.2.2');
    expect(page.statusCode).toBe(429);
    expect(Number(page.headers['retry-after'])).toBeGreaterThan(0);
    expect(page.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('failures from one address spread over both routes and many users exhaust one budget of 20', async () => {
    const ip = '198.51.100.7';
    for (let i = 0; i < 10; i++) expect((await backoffice(basic(`nobody-${i}@shop.test`, 'guess'), ip)).statusCode).toBe(401);
    for (let i = 10; i < 20; i++) expect((await inbox(basic(`nobody-${i}@shop.test`, 'guess'), ip)).statusCode).toBe(401);

    const m = await newMerchant(app);
    for (const res of [await backoffice(basic(m.email, m.password), ip), await inbox(basic(m.email, m.password), ip)]) {
      expect(res.statusCode).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Another address is not held back by this one's failures.
    expect((await inbox(basic(m.email, m.password), '198.51.100.8')).statusCode).toBe(200);
  });

  it('the inbox page keeps its own realm on 401, the back office its own', async () => {
    const m = await newMerchant(app);
    const ip = '203.0.113.9';
    expect((await inbox(basic(m.email, 'wrong'), ip)).headers['www-authenticate']).toBe('Basic realm="Chipin sandbox"');
    expect((await backoffice(basic(m.email, 'wrong'), ip)).headers['www-authenticate']).toBe('Basic realm="Chipin back office", charset="UTF-8"');
  });
});
