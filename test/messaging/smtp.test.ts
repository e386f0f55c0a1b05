import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUuid } from '../../src/domain/ids.ts';
import type { PledgeMessage } from '../../src/messaging/messenger.ts';
import { createMailer } from '../../src/messaging/mailer.ts';
import { OutboundMessenger } from '../../src/messaging/outbound-messenger.ts';
import { SandboxSmsGateway } from '../../src/messaging/sms.ts';
import { newMerchant, startTestApp, type TestApp } from '../helpers/app.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';
import { closedPort, insertPurchaseRow, linkMessage, silentServer } from './fixtures.ts';

async function rows(app: TestApp, purchaseId: string) {
  const { rows } = await app.services.db.query<{
    channel: string;
    recipient: string;
    subject: string;
    body: string;
    accepted: boolean;
    error: string | null;
    provider_id: string | null;
  }>('SELECT channel, recipient, subject, body, accepted, error, provider_id FROM outbound_messages WHERE purchase_id = $1 ORDER BY created_at', [purchaseId]);
  return rows;
}

// One app (its database boots in seconds) for the whole file, configured with SMTP_URL.
let smtp: Awaited<ReturnType<typeof smtpListener>>;
let app: TestApp;
beforeAll(async () => {
  smtp = await smtpListener();
  app = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

describe('e-mail over SMTP (SMTP_URL)', () => {
  it('delivers the purchase link to a real mail server and records it as accepted', async () => {
    const ids = await insertPurchaseRow(app, await newMerchant(app, 'Boulangerie Dupont'));
    const message = linkMessage(ids, { merchantName: 'Boulangerie Dupont', title: 'Gâteau <spécial>' });
    const ok = await app.services.messenger.sendPurchaseLinkEmail('leader@example.test', message);
    expect(ok).toBe(true);

    const got = smtp.received.find((r) => r.to.includes('leader@example.test'));
    expect(got).toBeDefined();
    expect(got!.from).toBe('no-reply@chipin.invalid');
    const text = decoded(got!.raw);
    expect(text).toContain(message.url);
    expect(text).toContain(`href="${message.url}"`);
    expect(text).toContain('Bonjour Alice');
    expect(text).toContain('&lt;spécial&gt;'); // the HTML part, escaped
    expect(got!.raw).toMatch(/^From: Chipin <no-reply@chipin\.invalid>/m);

    const [row] = await rows(app, ids.purchaseId);
    expect(row).toMatchObject({ channel: 'email', recipient: 'leader@example.test', accepted: true, error: null });
    expect(row!.body).toContain(message.url);
    expect(row!.subject).toContain('Boulangerie Dupont');
    expect(row!.provider_id).toMatch(/^<.+@.+>$/); // the Message-ID
  });

  it('refuses an address that would add recipients, without contacting the server', async () => {
    const ids = await insertPurchaseRow(app, await newMerchant(app));
    const before = smtp.received.length;
    expect(await app.services.messenger.sendPurchaseLinkEmail('a@example.test, b@example.test', linkMessage(ids))).toBe(false);
    expect(smtp.received.length).toBe(before);
    expect((await rows(app, ids.purchaseId))[0]).toMatchObject({ accepted: false, error: 'invalid e-mail address' });
  });
});

describe('pledge messages', () => {
  /** A pledger's message about the purchase `ids`, pointing at the pledger's own page. */
  function pledgeMessage(ids: { accountId: string; purchaseId: string }, over: Partial<PledgeMessage> = {}): PledgeMessage {
    return {
      ...linkMessage(ids, { firstName: 'Leader' }),
      url: `http://127.0.0.1:3000/pledge/plg_${newUuid()}`,
      kind: 'invitation',
      inviterName: 'Alice <Martin>',
      shareCents: 4_115,
      deadline: new Date('2026-11-23T13:00:00Z'),
      pledgerName: 'Bob',
      ...over,
    };
  }

  it('delivers a pledge invitation to a real mail server and records it as accepted', async () => {
    const ids = await insertPurchaseRow(app, await newMerchant(app, 'Boulangerie Dupont'));
    const message = pledgeMessage(ids, { merchantName: 'Boulangerie Dupont' });
    expect(await app.services.messenger.sendPledgeEmail(' pledger@example.test ', message)).toBe(true);

    const got = smtp.received.find((r) => r.to.includes('pledger@example.test'));
    expect(got).toBeDefined();
    const text = decoded(got!.raw).replace(/[\u00a0\u202f]/g, ' ');
    expect(text).toContain(`href="${message.url}"`);
    expect(text).toContain('Bonjour Bob');
    expect(text).toContain('Alice <Martin> vous invite à verser 41,15 € pour « Trip to Lisbon » chez Boulangerie Dupont (total 123,45 €).');
    expect(text).toContain('Alice &lt;Martin&gt; vous invite'); // the HTML part, escaped
    expect(text).toContain(`Réglez votre part avant le 23 novembre 2026 à 14:00 (UTC+1) :\n${message.url}\n`);

    const [row] = await rows(app, ids.purchaseId);
    expect(row).toMatchObject({ channel: 'email', recipient: 'pledger@example.test', accepted: true, error: null });
    expect(row!.body).toContain(message.url);
    expect(row!.subject).toContain('Alice <Martin> vous invite à verser');
    expect(row!.provider_id).toMatch(/^<.+@.+>$/);
    expect(app.logs.some((l) => l.includes('"message":"pledge_invitation"') && l.includes(ids.purchaseId))).toBe(true);
  });

  it('goes through the same checks and record as the purchase link (bad address, unbuildable message, SMS)', async () => {
    const ids = await insertPurchaseRow(app, await newMerchant(app));
    const before = smtp.received.length;
    expect(await app.services.messenger.sendPledgeEmail('a@example.test; b@example.test', pledgeMessage(ids))).toBe(false);
    expect(await app.services.messenger.sendPledgeEmail('pledger@example.test', pledgeMessage(ids, { deadline: new Date(Number.NaN) }))).toBe(false);
    expect(smtp.received.length).toBe(before);
    const reminder = pledgeMessage(ids, { kind: 'reminder', language: 'en_GB' });
    expect(await app.services.messenger.sendPledgeSms('+33 6 12 34 56 78', reminder)).toBe(true); // sandbox SMS gateway
    expect(await app.services.messenger.sendPledgeSms('0612345678', reminder)).toBe(false);

    const [badAddress, unbuildable, sms, badPhone] = await rows(app, ids.purchaseId);
    expect(badAddress).toMatchObject({ channel: 'email', accepted: false, error: 'invalid e-mail address' });
    expect(badAddress!.body).toContain('vous invite à verser');
    expect(unbuildable).toMatchObject({ channel: 'email', accepted: false, body: '' });
    expect(unbuildable!.error).toMatch(/^could not build the message: /);
    expect(sms).toMatchObject({ channel: 'sms', recipient: '+33612345678', accepted: true, error: null });
    expect(sms!.body).toBe(`Chipin, for Test Shop: Reminder: Alice <Martin> invites you to chip in €41.15 before 23 November 2026, 14:00 (UTC+1): ${reminder.url}`);
    expect(badPhone).toMatchObject({ channel: 'sms', accepted: false });
    expect(badPhone!.error).toMatch(/invalid phone number/);
  });
});

describe('e-mail refused or undeliverable', () => {
  function messengerFor(smtpUrl: string | undefined, env: 'sandbox' | 'production' = 'sandbox', timeoutMs?: number) {
    const mailer = createMailer({ env, smtpUrl, mailFrom: 'Shop <shop@example.test>' }, { timeoutMs });
    return new OutboundMessenger({ db: app.services.db, mailer, sms: new SandboxSmsGateway(), logger: app.logger });
  }

  it('answers false and records accepted=false when the server rejects the recipient', async () => {
    const smtp = await smtpListener({
      onRcptTo(address, _session, callback) {
        const err = Object.assign(new Error('5.1.1 No such user here'), { responseCode: 550 });
        callback(address.address === 'nobody@example.test' ? err : undefined);
      },
    });
    try {
      const ids = await insertPurchaseRow(app, await newMerchant(app));
      const ok = await messengerFor(`smtp://127.0.0.1:${smtp.port}`).sendPurchaseLinkEmail('nobody@example.test', linkMessage(ids));
      expect(ok).toBe(false);
      expect(smtp.received).toHaveLength(0);
      const [row] = await rows(app, ids.purchaseId);
      expect(row).toMatchObject({ channel: 'email', recipient: 'nobody@example.test', accepted: false });
      expect(row!.error).toMatch(/No such user|rejected/);
    } finally {
      await smtp.close();
    }
  });

  it('answers false at once when nothing listens on the SMTP port', async () => {
    const ids = await insertPurchaseRow(app, await newMerchant(app));
    const started = Date.now();
    const ok = await messengerFor(`smtp://127.0.0.1:${await closedPort()}`).sendPurchaseLinkEmail('leader@example.test', linkMessage(ids));
    expect(ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await rows(app, ids.purchaseId))[0]).toMatchObject({ accepted: false });
    expect((await rows(app, ids.purchaseId))[0]!.error).toMatch(/ECONNREFUSED|connect/i);
  });

  it('answers false within the timeout when the server never greets', async () => {
    const dead = await silentServer();
    try {
      const ids = await insertPurchaseRow(app, await newMerchant(app));
      const started = Date.now();
      const ok = await messengerFor(`smtp://127.0.0.1:${dead.port}`, 'sandbox', 400).sendPurchaseLinkEmail('leader@example.test', linkMessage(ids));
      const elapsed = Date.now() - started;
      expect(ok).toBe(false);
      expect(elapsed).toBeGreaterThanOrEqual(300);
      expect(elapsed).toBeLessThan(5_000);
      expect((await rows(app, ids.purchaseId))[0]!.error).toMatch(/timeout|timed out|greeting/i);
    } finally {
      await dead.close();
    }
  });

  it('in sandbox without SMTP_URL records the e-mail as accepted (nothing leaves the machine)', async () => {
    const ids = await insertPurchaseRow(app, await newMerchant(app));
    expect(await messengerFor(undefined, 'sandbox').sendPurchaseLinkEmail('leader@example.test', linkMessage(ids))).toBe(true);
    expect((await rows(app, ids.purchaseId))[0]).toMatchObject({ accepted: true, error: null });
  });

  it('in production without SMTP_URL answers false: "no SMTP_URL configured"', async () => {
    const ids = await insertPurchaseRow(app, await newMerchant(app));
    expect(await messengerFor(undefined, 'production').sendPurchaseLinkEmail('leader@example.test', linkMessage(ids))).toBe(false);
    expect((await rows(app, ids.purchaseId))[0]).toMatchObject({ accepted: false, error: 'no SMTP_URL configured' });
  });

  it('never throws: a message that cannot be built is recorded as not sent', async () => {
    const ids = await insertPurchaseRow(app, await newMerchant(app));
    expect(await app.services.messenger.sendPurchaseLinkEmail('leader@example.test', linkMessage(ids, { currency: 'ZZZ' }))).toBe(false);
    const [row] = await rows(app, ids.purchaseId);
    expect(row).toMatchObject({ accepted: false });
    expect(row!.error).toMatch(/could not build the message: unknown currency/);
  });

  it('a message that cannot be recorded still answers what the server said, and the failure is logged', async () => {
    const m = await newMerchant(app);
    const ids = await insertPurchaseRow(app, m);
    const orphan = { ...ids, purchaseId: '00000000-0000-4000-8000-000000000000' }; // violates the purchase foreign key
    expect(await app.services.messenger.sendPurchaseLinkEmail('leader@example.test', linkMessage(orphan))).toBe(true);
    expect(app.logs.some((l) => l.includes('could not record an outbound message') && l.includes(orphan.purchaseId))).toBe(true);
  });
});
