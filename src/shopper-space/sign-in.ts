import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { AttemptBudgets, Claim } from '../auth/attempt-budgets.ts';
import { BUDGETS } from '../auth/attempt-budgets.ts';
import { deriveKey } from '../crypto/keys.ts';
import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import { newUuid } from '../domain/ids.ts';
import { spaceSignInLinkUrl } from '../domain/links.ts';
import type { Lang } from '../i18n/lang.ts';
import type { Mailer } from '../messaging/mailer.ts';
import { recordMessage } from '../messaging/outbound-message-repository.ts';
import type { SmsGateway } from '../messaging/sms.ts';
import { identityOf, type ShopperIdentity } from './identity.ts';
import { sha256 } from './sessions.ts';
import { signInMail, signInSms } from './sign-in-messages.ts';
import { accountsOfShopper, isKnownShopper } from './shopper-purchase-repository.ts';
import { findSignInRequestByToken, insertSignInRequest, tryCodeRequest, useSignInRequest } from './sign-in-repository.ts';

/** A link works for 15 minutes, a code for 10, with 5 tries (docs/shopper-space.md#sign-in). */
export const LINK_MINUTES = 15;
export const CODE_MINUTES = 10;
const CODE_TRIES = 5;

export interface SignInDeps {
  db: Database;
  clock: Clock;
  mailer: Pick<Mailer, 'send'>;
  sms: Pick<SmsGateway, 'send'>;
  budgets: AttemptBudgets;
  masterKey: Buffer;
  publicUrl: string;
  logger?: Pick<Logger, 'warn'>;
  /**
   * The sandbox: each sign-in message is also written in the inbox (`/sandbox/inbox`,
   * `/api/sandbox/messages`) of the merchant account the shopper has purchases with, when there is
   * one only, so a developer without a mail server can sign in
   * (docs/shopper-space.md#sign-in-in-the-sandbox). Never in production, where the link or code is
   * the shopper's secret.
   */
  sandboxInbox?: boolean;
}

/** The browser's binding cookie, as stored: a hash, like every other token. */
function browserHash(browser: string): Buffer {
  return sha256(`shopper-browser|${browser}`);
}

function codeHash(masterKey: Buffer, requestId: string, code: string): Buffer {
  return createHmac('sha256', deriveKey(masterKey, 'shopper-sign-in')).update(`code|${requestId}|${code}`).digest();
}

const addressClaim = (ip: string): Claim => ({ budget: BUDGETS.shopperAddress, subject: ip });

export type SignInRequested = { kind: 'sent'; channel: 'email' | 'phone' } | { kind: 'throttled'; retryAfter: number };

/**
 * A shopper asks to sign in: a link by e-mail, or a code by SMS for a phone number, bound to the
 * asking browser (its cookie `browser`), single-use and short-lived. Sent only to an identity that
 * is party to a purchase, but answered the same either way: the form tells nobody whether an
 * address is known. Each request counts in the identity's budget (no mail bombing) and the
 * address's.
 */
export async function requestSignIn(
  deps: SignInDeps,
  input: { identity: ShopperIdentity; browser: string; ip: string; lang: Lang; returnPath?: string },
): Promise<SignInRequested> {
  const { identity } = input;
  const wait = await deps.budgets.fail([{ budget: BUDGETS.shopperIdentity, subject: `${identity.kind}:${identity.value}` }, addressClaim(input.ip)]);
  if (wait > 0) return { kind: 'throttled', retryAfter: wait };
  const channel = identity.kind;
  if (!(await isKnownShopper(deps.db, identity))) return { kind: 'sent', channel };

  const id = newUuid();
  const now = deps.clock.now();
  const minutes = identity.kind === 'email' ? LINK_MINUTES : CODE_MINUTES;
  const base = { id, kind: identity.kind, identity: identity.value, browserHash: browserHash(input.browser), returnPath: input.returnPath ?? null, now };
  const expiresAt = new Date(now.getTime() + minutes * 60_000);
  if (identity.kind === 'email') {
    const token = randomBytes(32).toString('base64url');
    await insertSignInRequest(deps.db, { ...base, tokenHash: sha256(token), expiresAt });
    const mail = signInMail(input.lang, identity.value, spaceSignInLinkUrl(deps.publicUrl, token), minutes);
    sendLater(deps, deps.mailer.send(mail), { identity, subject: mail.subject, body: mail.text });
  } else {
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await insertSignInRequest(deps.db, { ...base, tokenHash: codeHash(deps.masterKey, id, code), expiresAt });
    const text = signInSms(input.lang, code, minutes);
    sendLater(deps, deps.sms.send(identity.value, text), { identity, subject: null, body: text });
  }
  return { kind: 'sent', channel };
}

/**
 * The answer does not wait for the mail server or the SMS gateway: a known identity (a message
 * sent) and an unknown one (nothing sent) are then answered alike in time too, not only in words.
 * A send never throws; one not accepted is logged (without its content: the link or code is a
 * secret). In the sandbox the message then goes to the inboxes of the shopper's merchants.
 */
function sendLater(deps: SignInDeps, sending: Promise<{ accepted: boolean; error?: string }>, message: { identity: ShopperIdentity; subject: string | null; body: string }): void {
  const channel = message.identity.kind === 'email' ? 'e-mail' : 'SMS';
  void sending
    .then(
      (sent) => {
        if (!sent.accepted) deps.logger?.warn({ error: sent.error }, `shopper sign-in ${channel} not accepted`);
        return sent;
      },
      () => {
        deps.logger?.warn(`shopper sign-in ${channel} not sent`);
        return { accepted: false, error: 'not sent' };
      },
    )
    .then(async (sent) => {
      if (!deps.sandboxInbox) return;
      const { identity, subject, body } = message;
      const now = deps.clock.now();
      // The link or code opens the shopper's whole space: only a merchant it shows nothing else of
      // may read it. A shopper with purchases at several merchants (test addresses do collide in a
      // shared sandbox) has no copy in any inbox.
      const accounts = await accountsOfShopper(deps.db, identity);
      if (accounts.length !== 1) return;
      const record = {
        accountId: accounts[0]!,
        purchaseId: null,
        channel: identity.kind === 'email' ? ('email' as const) : ('sms' as const),
        recipient: identity.value,
        subject,
        body,
      };
      await recordMessage(deps.db, { ...record, accepted: sent.accepted, error: sent.error ?? null, providerId: null }, null, now);
    })
    .catch((err: unknown) => deps.logger?.warn({ err }, `shopper sign-in ${channel} not written to the sandbox inbox`));
}

export type SignedIn = { kind: 'signed_in'; identity: ShopperIdentity; returnPath: string | undefined };

export type LinkRedeemed =
  | SignedIn
  /** The link is valid but was asked for in another browser: open it there (it stays usable). */
  | { kind: 'other_browser' }
  /** Unknown, used, or expired: ask for a new one. */
  | { kind: 'invalid' }
  | { kind: 'throttled'; retryAfter: number };

/** A sign-in link opened: signs in once, in the browser that asked, before it expires. */
export async function redeemLink(deps: SignInDeps, input: { token: string; browser: string | undefined; ip: string }): Promise<LinkRedeemed> {
  const claim = [addressClaim(input.ip)];
  const waiting = await deps.budgets.wait(claim);
  if (waiting > 0) return { kind: 'throttled', retryAfter: waiting };
  const row = /^[A-Za-z0-9_-]{43}$/.test(input.token) ? await findSignInRequestByToken(deps.db, sha256(input.token)) : undefined;
  const now = deps.clock.now();
  const refused = async (kind: 'other_browser' | 'invalid'): Promise<LinkRedeemed> => {
    const wait = await deps.budgets.fail(claim);
    return wait > 0 ? { kind: 'throttled', retryAfter: wait } : { kind };
  };
  if (!row || row.identity_kind !== 'email' || row.used_at !== null || row.expires_at <= now) return refused('invalid');
  const mine = input.browser !== undefined && Buffer.from(row.browser_hash).equals(browserHash(input.browser));
  if (!mine) return refused('other_browser');
  if (!(await useSignInRequest(deps.db, row.id, browserHash(input.browser!), now))) return refused('invalid');
  return { kind: 'signed_in', identity: identityOf(row.identity_kind, row.identity), returnPath: row.return_path ?? undefined };
}

export type CodeRedeemed =
  | SignedIn
  /** Not six digits: nothing was tried. */
  | { kind: 'malformed' }
  /** Wrong: `triesLeft` more on this code (0: ask for a new one). */
  | { kind: 'wrong'; triesLeft: number }
  /** No code of this browser to try (none asked, used, expired, or out of tries). */
  | { kind: 'no_code' }
  | { kind: 'throttled'; retryAfter: number };

/** The code of an SMS typed in: the newest code asked in this browser, 5 tries, once. */
export async function redeemCode(deps: SignInDeps, input: { code: string; browser: string | undefined; ip: string }): Promise<CodeRedeemed> {
  const claim = [addressClaim(input.ip)];
  const waiting = await deps.budgets.wait(claim);
  if (waiting > 0) return { kind: 'throttled', retryAfter: waiting };
  const code = input.code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(code)) return { kind: 'malformed' };
  if (input.browser === undefined) return { kind: 'no_code' };
  const now = deps.clock.now();
  const bound = browserHash(input.browser);
  const row = await tryCodeRequest(deps.db, bound, now, CODE_TRIES);
  if (!row) return { kind: 'no_code' };
  const expected = codeHash(deps.masterKey, row.id, code);
  const stored = Buffer.from(row.token_hash);
  if (stored.length !== expected.length || !timingSafeEqual(stored, expected)) {
    const wait = await deps.budgets.fail(claim);
    return wait > 0 ? { kind: 'throttled', retryAfter: wait } : { kind: 'wrong', triesLeft: Math.max(0, CODE_TRIES - row.attempts) };
  }
  if (!(await useSignInRequest(deps.db, row.id, bound, now))) return { kind: 'no_code' };
  return { kind: 'signed_in', identity: identityOf(row.identity_kind, row.identity), returnPath: row.return_path ?? undefined };
}
