import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttemptBudgets } from '../../src/auth/attempt-budgets.ts';
import { createMailer } from '../../src/messaging/mailer.ts';
import type { SmsGateway } from '../../src/messaging/sms.ts';
import { purgeEndedShopperRows } from '../../src/shopper-space/session-repository.ts';
import { ShopperSessions } from '../../src/shopper-space/sessions.ts';
import { redeemCode, redeemLink, requestSignIn, type SignInDeps } from '../../src/shopper-space/sign-in.ts';
import { caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ManualClock } from '../helpers/manual-clock.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';

/**
 * The shopper's space sign-in, driven directly (no HTTP), on a clock the test moves: links and
 * codes expire, work once even when used twice at once, and sessions end (docs/shopper-space.md#sign-in).
 */
let app: TestApp;
let smtp: Awaited<ReturnType<typeof smtpListener>>;
const texts: string[] = [];
const clock = new ManualClock(new Date('2026-11-24T10:00:00Z'));
let deps: SignInDeps;
const ann = { kind: 'email', value: 'ann@example.com' } as const;
const annPhone = { kind: 'phone', value: '+33611223344' } as const;
let ip = 0;
/** Each test from its own address: the address budget is not what these tests are about. */
const nextIp = () => `192.0.2.${++ip}`;

beforeAll(async () => {
  smtp = await smtpListener();
  app = await startTestApp();
  const m = await caller(app);
  await m.post('/api/merchants/v1/purchases', { title: 'Shoes', amount: 10_000, client: { email: ann.value } });
  await m.post(`/api/merchants/${m.offer('SHARED')}/purchase_link`, {
    data: { title: 'Tent', reference: 'T-1', amountCents: 20_000, email: 'someone@example.com', phoneNumber: annPhone.value, language: 'en_GB' },
  });
  const sms: SmsGateway = {
    kind: 'http',
    send: async (_to, text) => {
      texts.push(text);
      return { accepted: true };
    },
  };
  deps = {
    db: app.services.db,
    clock,
    mailer: createMailer({ env: 'sandbox', smtpUrl: `smtp://127.0.0.1:${smtp.port}`, mailFrom: 'Chipin <no-reply@chipin.invalid>' }),
    sms,
    budgets: new AttemptBudgets(app.services.db),
    masterKey: app.services.config.masterKey,
    publicUrl: 'http://127.0.0.1:3000',
  };
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

async function link(browser: string): Promise<string> {
  const before = smtp.received.length;
  expect(await requestSignIn(deps, { identity: ann, browser, ip: nextIp(), lang: 'en' })).toEqual({ kind: 'sent', channel: 'email' });
  expect(smtp.received.length).toBe(before + 1);
  return /\/space\/sign-in\/link\/([A-Za-z0-9_-]{43})/.exec(decoded(smtp.received.at(-1)!.raw))![1]!;
}

async function code(browser: string): Promise<string> {
  const before = texts.length;
  expect(await requestSignIn(deps, { identity: annPhone, browser, ip: nextIp(), lang: 'en' })).toEqual({ kind: 'sent', channel: 'phone' });
  expect(texts.length).toBe(before + 1);
  return /(\d{6})/.exec(texts.at(-1)!)![1]!;
}

const BROWSER = 'b'.repeat(32);

describe('links', () => {
  it('works until 15 minutes after it was sent, not after', async () => {
    const fresh = await link(BROWSER);
    const stale = await link(BROWSER);
    clock.advance(14 * 60_000 + 59_000);
    expect((await redeemLink(deps, { token: fresh, browser: BROWSER, ip: nextIp() })).kind).toBe('signed_in');
    clock.advance(2_000);
    expect(await redeemLink(deps, { token: stale, browser: BROWSER, ip: nextIp() })).toEqual({ kind: 'invalid' });
  });

  it('signs in once when opened twice at once', async () => {
    const token = await link(BROWSER);
    const both = await Promise.all([redeemLink(deps, { token, browser: BROWSER, ip: nextIp() }), redeemLink(deps, { token, browser: BROWSER, ip: nextIp() })]);
    expect(both.map((r) => r.kind).sort()).toEqual(['invalid', 'signed_in']);
  });

  it('signs in nobody without the asking browser, and stays usable there', async () => {
    const token = await link(BROWSER);
    expect(await redeemLink(deps, { token, browser: undefined, ip: nextIp() })).toEqual({ kind: 'other_browser' });
    expect(await redeemLink(deps, { token, browser: 'c'.repeat(32), ip: nextIp() })).toEqual({ kind: 'other_browser' });
    expect(await redeemLink(deps, { token, browser: BROWSER, ip: nextIp() })).toMatchObject({ kind: 'signed_in', identity: ann });
  });
});

describe('codes', () => {
  it('works until 10 minutes after it was sent, not after', async () => {
    const browser = 'd'.repeat(32);
    const first = await code(browser);
    clock.advance(10 * 60_000 + 1_000);
    expect(await redeemCode(deps, { code: first, browser, ip: nextIp() })).toEqual({ kind: 'no_code' });
    const second = await code(browser);
    clock.advance(9 * 60_000);
    expect(await redeemCode(deps, { code: second, browser, ip: nextIp() })).toMatchObject({ kind: 'signed_in', identity: annPhone });
  });

  it('counts tries sent at once one by one: of 10 wrong codes at once, 5 are tried, and the right one after them is refused', async () => {
    const browser = 'e'.repeat(32);
    const right = await code(browser);
    const wrong = right === '123456' ? '654321' : '123456';
    const answers = await Promise.all(Array.from({ length: 10 }, () => redeemCode(deps, { code: wrong, browser, ip: nextIp() })));
    expect(answers.filter((a) => a.kind === 'wrong')).toHaveLength(5);
    expect(answers.filter((a) => a.kind === 'no_code')).toHaveLength(5);
    expect(await redeemCode(deps, { code: right, browser, ip: nextIp() })).toEqual({ kind: 'no_code' });
  });
});

describe('sessions', () => {
  it('end 2 hours after sign-in', async () => {
    const sessions = new ShopperSessions(app.services.db, app.services.config.masterKey, clock);
    const { token } = await sessions.create(ann);
    clock.advance(2 * 3600_000 - 1_000);
    expect(await sessions.find(token)).toMatchObject({ identity: ann });
    clock.advance(2_000);
    expect(await sessions.find(token)).toBeUndefined();
  });
});

describe('the purge', () => {
  it('deletes sessions and sign-in requests ended more than a day ago, and keeps the live ones', async () => {
    const sessions = new ShopperSessions(app.services.db, app.services.config.masterKey, clock);
    const old = await sessions.create(ann);
    await link('f'.repeat(32));
    clock.advance(3 * 86_400_000);
    const live = await sessions.create(ann);
    await purgeEndedShopperRows(app.services.db, clock.now());
    const { rows } = await app.services.db.query<{ n: number }>(
      "SELECT (SELECT count(*) FROM shopper_sessions WHERE id = $1)::int4 + (SELECT count(*) FROM shopper_sign_in_requests WHERE expires_at < $2::timestamptz - interval '1 day')::int4 AS n",
      [old.session.sessionId, clock.now()],
    );
    expect(rows[0]!.n).toBe(0);
    expect(await sessions.find(live.token)).toMatchObject({ identity: ann });
  });
});
