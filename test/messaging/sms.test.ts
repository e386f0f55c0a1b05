import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redacted } from '../../src/domain/redacted.ts';
import { createSmsGateway, HttpSmsGateway, NoSmsGateway, SandboxSmsGateway } from '../../src/messaging/sms.ts';
import { newMerchant, startTestApp, type TestApp } from '../helpers/app.ts';
import { closedPort, insertPurchaseRow, linkMessage } from './fixtures.ts';
import { INSTALLMENTS_3X, notices } from './shopper-fixtures.ts';
import type { SmsNotice } from '../../src/messaging/messenger.ts';

const KEY = 'sk_test_do-not-log-me-7f3a9c';

interface Hit {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local SMS gateway: records each request and answers as `respond` says. */
async function gatewayServer(respond: (hit: Hit, res: ServerResponse) => void) {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      hits.push(hit);
      respond(hit, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1/sms`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let gw: Awaited<ReturnType<typeof gatewayServer>>;
let mode: 'ok' | 'ok-no-json' | 'fail' | 'hang' = 'ok';
let app: TestApp;

beforeAll(async () => {
  gw = await gatewayServer((_hit, res) => {
    if (mode === 'hang') return; // never answers
    if (mode === 'fail') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream\nbroken');
    if (mode === 'ok-no-json') return void res.writeHead(202).end();
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'msg_123', status: 'queued' }));
  });
  app = await startTestApp({ smsGatewayUrl: gw.url, smsGatewayKey: new Redacted(KEY), smsSender: 'ShoeShop' });
});
afterAll(async () => {
  await app?.close();
  await gw?.close();
});

describe('HttpSmsGateway', () => {
  it('POSTs JSON {to, text, sender} with the bearer key; 2xx is accepted, with the gateway id', async () => {
    mode = 'ok';
    const sms = new HttpSmsGateway({ url: gw.url, key: new Redacted(KEY), sender: 'Chipin' });
    const result = await sms.send('+33612345678', 'Hello');
    expect(result).toEqual({ accepted: true, providerId: 'msg_123' });
    const hit = gw.hits.at(-1)!;
    expect(hit.method).toBe('POST');
    expect(hit.url).toBe('/v1/sms');
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(hit.body)).toEqual({ to: '+33612345678', text: 'Hello', sender: 'Chipin' });
  });

  it('a 2xx without JSON body is still accepted', async () => {
    mode = 'ok-no-json';
    expect(await new HttpSmsGateway({ url: gw.url, key: undefined, sender: 'Chipin' }).send('+33612345678', 'x')).toEqual({ accepted: true });
    expect(gw.hits.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('a 500 is not accepted, with the status in the error', async () => {
    mode = 'fail';
    const result = await new HttpSmsGateway({ url: gw.url, key: new Redacted(KEY), sender: 'Chipin' }).send('+33612345678', 'x');
    expect(result.accepted).toBe(false);
    expect(result.error).toBe('SMS gateway answered HTTP 500: upstream broken');
  });

  it('a gateway that never answers is given up within the timeout', async () => {
    mode = 'hang';
    const started = Date.now();
    const result = await new HttpSmsGateway({ url: gw.url, key: new Redacted(KEY), sender: 'Chipin', timeoutMs: 300 }).send('+33612345678', 'x');
    const elapsed = Date.now() - started;
    expect(result).toEqual({ accepted: false, error: 'SMS gateway did not answer within 300 ms' });
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(3_000);
  });

  it('an unreachable gateway is not accepted', async () => {
    const result = await new HttpSmsGateway({ url: `http://127.0.0.1:${await closedPort()}/`, key: undefined, sender: 'Chipin' }).send('+33612345678', 'x');
    expect(result.accepted).toBe(false);
    expect(result.error).toMatch(/^SMS gateway unreachable: .*ECONNREFUSED/);
  });

  it('is chosen by the configuration: HTTP when SMS_GATEWAY_URL is set, sandbox or none otherwise', () => {
    const base = { smsGatewayKey: undefined, smsSender: 'Chipin' };
    expect(createSmsGateway({ ...base, env: 'production', smsGatewayUrl: 'https://sms.example/send' })).toBeInstanceOf(HttpSmsGateway);
    expect(createSmsGateway({ ...base, env: 'sandbox', smsGatewayUrl: undefined })).toBeInstanceOf(SandboxSmsGateway);
    expect(createSmsGateway({ ...base, env: 'production', smsGatewayUrl: undefined })).toBeInstanceOf(NoSmsGateway);
  });

  it('keeps the key out of logs and serialisations', () => {
    const sms = new HttpSmsGateway({ url: gw.url, key: new Redacted(KEY), sender: 'Chipin' });
    expect(JSON.stringify(sms)).not.toContain(KEY);
    expect(inspect(sms, { depth: 5 })).not.toContain(KEY);
    expect(JSON.stringify(app.services.config)).not.toContain(KEY);
    expect(inspect(app.services.config, { depth: 5 })).not.toContain(KEY);
  });
});

describe('SMS through the messenger', () => {
  async function rows(purchaseId: string) {
    const { rows } = await app.services.db.query<{
      channel: string;
      recipient: string;
      subject: string | null;
      body: string;
      accepted: boolean;
      error: string | null;
      provider_id: string | null;
    }>('SELECT channel, recipient, subject, body, accepted, error, provider_id FROM outbound_messages WHERE purchase_id = $1', [purchaseId]);
    return rows;
  }

  it('sends the link to the configured gateway and records it as accepted', async () => {
    mode = 'ok';
    const ids = await insertPurchaseRow(app, await newMerchant(app));
    const message = linkMessage(ids, { language: 'en_GB' });
    expect(await app.services.messenger.sendPurchaseLinkSms('+33 6 12 34 56 78', message)).toBe(true);
    const hit = JSON.parse(gw.hits.at(-1)!.body) as { to: string; text: string; sender: string };
    expect(hit).toMatchObject({ to: '+33612345678', sender: 'ShoeShop' });
    expect(hit.text).toContain(message.url);
    expect((await rows(ids.purchaseId))[0]).toMatchObject({ channel: 'sms', recipient: '+33612345678', subject: null, body: hit.text, accepted: true, provider_id: 'msg_123' });
    expect(app.logs.join('\n')).not.toContain(KEY);
  });

  it('a gateway refusal answers false and is recorded with its reason', async () => {
    mode = 'fail';
    const ids = await insertPurchaseRow(app, await newMerchant(app));
    expect(await app.services.messenger.sendPurchaseLinkSms('+33612345678', linkMessage(ids))).toBe(false);
    expect((await rows(ids.purchaseId))[0]).toMatchObject({ accepted: false, error: 'SMS gateway answered HTTP 500: upstream broken' });
    expect(app.logs.join('\n')).not.toContain(KEY);
  });

  it('every SMS says Chipin sends it for the shop, by name, in the language, and is never a bare link', async () => {
    mode = 'ok';
    for (const [language, opening] of [
      ['en_GB', 'Chipin, for Test Shop: '],
      ['fr_FR', 'Chipin, pour Test Shop : '],
    ] as const) {
      const ids = await insertPurchaseRow(app, await newMerchant(app), { language });
      const link = linkMessage(ids, { language });
      const pledge = { ...link, kind: 'invitation' as const, inviterName: 'Alice', shareCents: 4_000, deadline: new Date('2026-08-03T12:00:00Z') };
      const before = gw.hits.length;
      // Every notice that has an SMS form: all but the leader's payment confirmation.
      const smsNotices = notices(language).filter((n): n is SmsNotice => n.kind !== 'leader_receipt');
      const sent = [
        await app.services.messenger.sendPurchaseLinkSms('+33612345678', link),
        await app.services.messenger.sendPurchaseLinkSms('+33612345678', { ...link, offer: INSTALLMENTS_3X }),
        await app.services.messenger.sendPledgeSms('+33612345678', pledge),
        await app.services.messenger.sendPledgeSms('+33612345678', { ...pledge, kind: 'reminder' }),
        ...(await Promise.all(
          smsNotices.map((n, i) => app.services.messenger.sendNoticeSms('+33612345678', { ...n, ...ids, merchantName: 'Test Shop', key: `${language}-${i}` })),
        )),
      ];
      expect(smsNotices.map((n) => n.kind)).toEqual(
        expect.arrayContaining(['pledge_receipt', 'installment_receipt', 'precharge', 'charge_failed', 'rest_failed', 'pot_complete', 'rest_charged', 'refund']),
      );
      expect(sent).toEqual(Array(4 + smsNotices.length).fill(true));
      // Bodied requests only: a CI run once recorded a stray empty request here under load (a
      // socket of an earlier test's hung request, never answered); every SMS Chipin sends is JSON,
      // and the count below still fails when one is missing.
      const texts = gw.hits
        .slice(before)
        .filter((h) => h.body !== '')
        .map((h) => (JSON.parse(h.body) as { text: string }).text);
      expect(texts).toHaveLength(4 + smsNotices.length);
      for (const text of texts) {
        expect(text.startsWith(opening)).toBe(true);
        // Words besides the opening and any link: what it is about, not only where to click.
        expect(
          text
            .slice(opening.length)
            .replace(/https?:\/\/\S+/g, '')
            .trim()
            .split(/\s+/).length,
        ).toBeGreaterThan(5);
      }
    }
  });

  it('an invalid phone number is not sent to the gateway', async () => {
    mode = 'ok';
    const ids = await insertPurchaseRow(app, await newMerchant(app));
    const before = gw.hits.length;
    expect(await app.services.messenger.sendPurchaseLinkSms('0612345678', linkMessage(ids))).toBe(false);
    expect(gw.hits.length).toBe(before);
    expect((await rows(ids.purchaseId))[0]).toMatchObject({ accepted: false, recipient: '0612345678' });
  });
});
