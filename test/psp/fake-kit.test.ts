import { afterEach, describe, expect, it } from 'vitest';
import { checkAuth, FakeHttpServer, FaultScript, hang, jsonReply, RequestLog, Router, underFault, type FakeRequest, type Outcome } from './fixtures/kit/index.ts';

// The fake-server kit the PSP fakes stand on (docs/testing.md#psp-fakes): what no fake's own suite shows.

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('fake-server kit', () => {
  let server: FakeHttpServer | undefined;
  afterEach(() => server?.stop());

  it('records requests with credential headers masked, unless the fake keeps one by name', () => {
    const req = {
      method: 'POST',
      path: '/v1/x',
      url: new URL('http://127.0.0.1/v1/x?a=1'),
      headers: { authorization: basic('u', 'p'), 'x-api-key': 'k', 'api-key': 'hk', 'idempotency-key': 'i' },
      body: 'b=2',
      clientGone: () => false,
    } as FakeRequest;
    const masked = new RequestLog().record(req);
    expect(masked).toEqual({
      method: 'POST',
      path: '/v1/x',
      query: '?a=1',
      headers: { authorization: '***', 'x-api-key': '***', 'api-key': '***', 'idempotency-key': 'i' },
      body: 'b=2',
    });
    expect(new RequestLog({ keep: ['X-API-Key'] }).record(req).headers).toMatchObject({ authorization: '***', 'x-api-key': 'k' });
  });

  it('routes by method and path, with parameters held to their pattern', () => {
    const router = new Router<string>().on('POST', '/payments/:ref([A-Z0-9]{4})/:kind(captures|refunds)', 'modify').on('GET', '/orders/:id', 'order');
    expect(router.match('POST', '/payments/AB12/refunds')).toEqual({ handler: 'modify', params: { ref: 'AB12', kind: 'refunds' } });
    expect(router.match('POST', '/payments/ab12/refunds')).toBeUndefined();
    expect(router.match('GET', '/payments/AB12/refunds')).toBeUndefined();
    expect(router.match('GET', '/orders/a%20b')?.params).toEqual({ id: 'a b' });
  });

  it('tells a missing credential from a wrong one, and which was presented', () => {
    const rules = [{ bearer: 'sk_1' }, { basic: { user: 'sk_1' } }];
    expect(checkAuth({ authorization: 'Bearer sk_1' }, rules)).toBeUndefined();
    expect(checkAuth({ authorization: basic('sk_1', '') }, rules)).toBeUndefined();
    expect(checkAuth({}, rules)).toEqual({ reason: 'missing', presented: '' });
    expect(checkAuth({ authorization: 'Bearer sk_2' }, rules)).toEqual({ reason: 'wrong', presented: 'sk_2' });
    expect(checkAuth({ authorization: basic('shop', 'nope') }, [{ basic: { user: 'shop', password: 'pw' } }])?.reason).toBe('wrong');
    expect(checkAuth({ 'x-api-key': 'k' }, [{ header: 'X-API-Key', value: 'k' }])).toBeUndefined();
  });

  it('plays scripted faults on the calls they match, as many times as asked, in order', () => {
    const faults = new FaultScript<string>();
    faults.add('a', { times: 2, match: (p) => p.startsWith('/order') });
    faults.add('b');
    expect([faults.take('/query'), faults.take('/order'), faults.take('/order'), faults.take('/order')]).toEqual(['b', 'a', 'a', undefined]);
  });

  it('a fault after the effect lets the call happen and loses its answer; stop() ends a hanging request', async () => {
    let effects = 0;
    server = new FakeHttpServer((req): Promise<Outcome> => underFault(hang('after'), req, () => (effects++, jsonReply(200, {}))));
    const url = await server.start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const pending = fetch(url, { method: 'POST' }).then(
      () => 'answered',
      () => 'cut',
    );
    while (effects === 0) await new Promise((r) => setTimeout(r, 5));
    await server.stop();
    expect(await pending).toBe('cut');
  });
});
