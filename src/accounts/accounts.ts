import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { generatePassword, hashPassword, verifyPassword } from '../crypto/passwords.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { newUuid, parsePublicId, toPublicId } from '../domain/ids.ts';
import { generateApiKey } from './api-keys.ts';
import { DEFAULT_OFFERS, type OfferTemplate } from './default-offers.ts';
import { OFFER_TYPES, type OfferType } from '../domain/offer-terms.ts';
import { MAX_BALANCE_DELAY_DAYS } from '../domain/schedule.ts';
import { isEmailAddress } from '../domain/email.ts';
import type { Role } from '../domain/roles.ts';
import { actorOf } from '../audit/audit-log.ts';
import { recordAudit } from '../audit/audit-repository.ts';
import type { ThrottleRow } from '../auth/throttle-repository.ts';
import { accountExists, accountProfile, countAccounts, insertAccount, setAccountSettings } from './account-repository.ts';
import { isPhoneCountry } from '../i18n/countries.ts';
import { knownLang, LANGS } from '../i18n/lang.ts';
import { DEFAULT_TIME_ZONE, timeZoneOf } from '../i18n/format.ts';
import { findActiveApiKeyWithBudgets, insertApiKey, listApiKeys, revokeApiKey, revokeLiveApiKey } from './api-key-repository.ts';
import {
  accountIdOfUserEmail,
  dashboardEmailTaken,
  endLiveSessions,
  endOtherSessions,
  findDashboardUserByEmail,
  insertDashboardUser,
  setPasswordHash,
  setPasswordHashByEmail,
} from './dashboard-user-repository.ts';
import { insertOffer } from './offer-repository.ts';

/** A dashboard user whose password was checked: who they are and what they may do. */
export interface DashboardUser {
  userId: string;
  accountId: string;
  email: string;
  role: Role;
}

/** An offer as `merchant create` and `offer create` print it, with its signing secret (shown once). */
export interface CreatedOffer {
  merchant_uid: string;
  type: string;
  installments: number;
  deferred_days: number;
  /** DOWN_PAYMENT offers (docs/schedules.md#down-payment); null on the others. */
  deposit_percent: number | null;
  max_balance_delay_days: number | null;
  secret: string;
}

/** What `chipin merchant create` prints: every secret here is shown once and stored only hashed or sealed. */
export interface CreatedMerchant {
  account_id: string;
  email: string;
  /** The IANA zone the account's times are shown in. */
  time_zone: string;
  password: string;
  api_key: string;
  api_secret: string;
  offers: CreatedOffer[];
}

/** What `chipin offer create` may choose of a new offer; the rest is its type's default terms (src/accounts/default-offers.ts). */
export interface OfferChoice {
  type: string;
  /** INSTALLMENTS: 2 to 12. */
  installments?: number;
  /** DEFERRED: 1 to 365. */
  deferredDays?: number;
  /** DOWN_PAYMENT: 1 to 99. */
  depositPercent?: number;
  /** DOWN_PAYMENT: 1 to 365. */
  maxBalanceDelayDays?: number;
}

export interface CreatedKey {
  account_id: string;
  api_key: string;
  api_secret: string;
}

/** An API key as the back office lists it: no secret, no hash. */
export interface ApiKeyView {
  apiKey: string;
  createdAt: Date;
  revokedAt: Date | undefined;
}

/** A request the operator's data cannot satisfy; the message is fit to print. */
export class AccountError extends Error {
  constructor(
    readonly code:
      | 'invalid_name'
      | 'invalid_email'
      | 'invalid_time_zone'
      | 'invalid_country'
      | 'invalid_language'
      | 'email_taken'
      | 'unknown_account'
      | 'unknown_key'
      | 'unknown_user'
      | 'invalid_offer',
    message: string,
  ) {
    super(message);
  }
}

export class Accounts {
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
  ) {}

  /**
   * Creates an account with its dashboard user, a first API key and the default offers, in one
   * transaction. `timeZone`: an IANA name ({@link timeZoneOf}); absent, the database's default
   * (Europe/Paris). `country`: ISO 3166 alpha-2 (`FR`); absent, the deployment's MERCHANT_COUNTRY.
   * `language`: one of the six in any spelling (`fr`, `de_DE`), the account's, a shopper's when nothing
   * else says theirs (docs/hosted-payment.md#language); absent, English.
   */
  async createMerchant(input: { name: string; email: string; timeZone?: string; country?: string; language?: string }): Promise<CreatedMerchant> {
    const name = input.name.trim();
    const email = input.email.trim();
    if (name.length === 0 || name.length > 200) throw new AccountError('invalid_name', 'name must be 1 to 200 characters');
    if (!isEmailAddress(email)) throw new AccountError('invalid_email', `email "${email}" is not an e-mail address`);
    const timeZone = input.timeZone === undefined ? undefined : timeZoneOf(input.timeZone);
    if (input.timeZone !== undefined && !timeZone) throw new AccountError('invalid_time_zone', `time zone "${input.timeZone}" is not an IANA time zone such as Europe/Paris`);
    const country = input.country?.trim().toUpperCase();
    if (country !== undefined && !isPhoneCountry(country)) throw new AccountError('invalid_country', `country "${input.country}" is not an ISO 3166 country code such as FR or GB`);
    const language = input.language === undefined ? undefined : knownLang(input.language);
    if (input.language !== undefined && !language) throw new AccountError('invalid_language', `language "${input.language}" is not one of ${LANGS.join(', ')}`);

    const password = generatePassword();
    const passwordHash = await hashPassword(password); // slow on purpose: outside the transaction
    const accountId = newUuid();
    const key = generateApiKey();
    const offers = DEFAULT_OFFERS.map((o) => ({ ...o, id: newUuid(), secret: randomBytes(32).toString('base64url') }));

    await this.db.transaction(async (tx) => {
      if (await dashboardEmailTaken(tx, email)) throw new AccountError('email_taken', `a dashboard user with e-mail ${email} already exists`);
      await insertAccount(tx, accountId, name, timeZone, country, language);
      await insertDashboardUser(tx, { id: newUuid(), accountId, email, passwordHash });
      await insertApiKey(tx, accountId, key.apiKey, key.secretHash);
      for (const o of offers) {
        await insertOffer(tx, { ...o, accountId, signingSecretEnc: this.box.seal(o.secret) });
      }
    });

    return {
      account_id: toPublicId('acc', accountId),
      email,
      time_zone: timeZone ?? DEFAULT_TIME_ZONE,
      password,
      api_key: key.apiKey,
      api_secret: key.apiSecret,
      offers: offers.map(createdOffer),
    };
  }

  /**
   * Adds an offer to an existing account (`chipin offer create`): an account made before a payment
   * solution existed (a down payment: docs/schedules.md#down-payment) gets one, or a second offer
   * of a type (6x beside 3x and 4x). It starts with its type's default terms, with what `choice`
   * says of what it sells; its fees, limits and parameters are edited afterwards like any offer's
   * (docs/back-office.md#editing-an-offer). Audited (`offer_create`) in the insert's transaction.
   */
  async createOffer(accountPublicId: string, choice: OfferChoice): Promise<CreatedOffer> {
    const accountId = parsePublicId('acc', accountPublicId);
    const template = offerTemplate(choice);
    const offer = { ...template, id: newUuid(), secret: randomBytes(32).toString('base64url') };
    await this.db.transaction(async (tx) => {
      if (!accountId || !(await accountExists(tx, accountId))) throw new AccountError('unknown_account', `no account ${accountPublicId}`);
      await insertOffer(tx, { ...offer, accountId, signingSecretEnc: this.box.seal(offer.secret) });
      const details = {
        type: offer.type,
        installments: offer.installments,
        deferred_days: offer.deferredDays,
        deposit_percent: offer.depositPercent,
        max_balance_delay_days: offer.maxBalanceDelayDays,
      };
      await recordAudit(tx, { accountId, actor: { label: 'cli' }, action: 'offer_create', subject: toPublicId('mer', offer.id), details });
    });
    return createdOffer(offer);
  }

  async createKey(accountPublicId: string): Promise<CreatedKey> {
    const accountId = parsePublicId('acc', accountPublicId);
    const key = generateApiKey();
    await this.db.transaction(async (tx) => {
      if (!accountId || !(await accountExists(tx, accountId))) throw new AccountError('unknown_account', `no account ${accountPublicId}`);
      await insertApiKey(tx, accountId, key.apiKey, key.secretHash);
    });
    return { account_id: accountPublicId, api_key: key.apiKey, api_secret: key.apiSecret };
  }

  /**
   * Revokes a key; its access tokens stop working within seconds (see RevokedKeys). Idempotent.
   * `accountId` (the back office) limits it to that account's keys: another account's key is
   * unknown, as a key that does not exist is; the CLI (operator) passes none.
   */
  async revokeKey(apiKey: string, accountId?: string): Promise<{ api_key: string; revoked_at: Date }> {
    const revokedAt = await revokeApiKey(this.db, apiKey, accountId ?? null);
    if (!revokedAt) throw new AccountError('unknown_key', `no API key ${apiKey}`);
    return { api_key: apiKey, revoked_at: revokedAt };
  }

  /**
   * A signed-in user's own password change: the current password checked, the new one hashed
   * (both outside the transaction: scrypt is slow on purpose), then in one transaction the hash
   * replaced, every other session of the user ended (a stolen session dies with the old
   * password; this one goes on) and the audit entry written. False when the current password is
   * wrong: nothing changes.
   */
  async changeDashboardPassword(user: { userId: string; accountId: string; email: string }, keepSessionId: string, current: string, next: string): Promise<boolean> {
    if (!(await this.dashboardUser(user.email, current))) return false;
    const hash = await hashPassword(next);
    await this.db.transaction(async (tx) => {
      await setPasswordHash(tx, user.accountId, user.userId, hash);
      await endOtherSessions(tx, user.userId, keepSessionId);
      await recordAudit(tx, { accountId: user.accountId, actor: actorOf(user), action: 'password_change', subject: user.email });
    });
    return true;
  }

  /**
   * The operator's reset of a dashboard user's password (`chipin dashboard reset-password`): a new
   * random password, returned once, and every session of the user ended, with the audit entry, in
   * one transaction. Only the hash is kept.
   */
  async resetDashboardPassword(email: string): Promise<{ email: string; password: string; revokedSessions: number }> {
    const password = generatePassword();
    const hash = await hashPassword(password);
    return this.db.transaction(async (tx) => {
      const user = await setPasswordHashByEmail(tx, email, hash);
      if (!user) throw new AccountError('unknown_user', `no dashboard user ${email}`);
      const revokedSessions = await endLiveSessions(tx, user.id);
      await recordAudit(tx, { accountId: user.account_id, actor: { label: 'cli' }, action: 'password_reset', subject: user.email });
      return { email: user.email, password, revokedSessions };
    });
  }

  /**
   * Rotation: a new key and secret, and the old key revoked, in one transaction (never both
   * live, never none). Revoking is what `key revoke` does, so the old secret gets no new token at
   * once and its tokens stop within RevokedKeys' refresh. An already revoked key is not rotated:
   * it would hand a new secret out on a key the merchant chose to end.
   */
  async rotateKey(apiKey: string, accountId: string): Promise<CreatedKey & { revoked: string }> {
    const key = generateApiKey();
    await this.db.transaction(async (tx) => {
      if (!(await revokeLiveApiKey(tx, apiKey, accountId))) throw new AccountError('unknown_key', `no live API key ${apiKey}`);
      await insertApiKey(tx, accountId, key.apiKey, key.secretHash);
    });
    return { account_id: toPublicId('acc', accountId), api_key: key.apiKey, api_secret: key.apiSecret, revoked: apiKey };
  }

  /** The account's API keys, newest first: ids and dates only (the secrets exist only hashed). */
  async listKeys(accountId: string): Promise<ApiKeyView[]> {
    const rows = await listApiKeys(this.db, accountId);
    return rows.map((r) => ({ apiKey: r.id, createdAt: r.created_at, revokedAt: r.revoked_at ?? undefined }));
  }

  /**
   * The key's account and secret hash, when the key exists and is not revoked, with the stored
   * rows of these failure budgets (`AttemptBudgets.rowsOf`) read in the same statement: the token
   * route needs both on every request, and one round trip costs less than two.
   */
  async findActiveKey(
    apiKey: string,
    budgets: { scopes: readonly string[]; subjects: readonly string[] },
  ): Promise<{ accountId: string; secretHash: Buffer; budgets: ThrottleRow[] } | undefined> {
    const row = await findActiveApiKeyWithBudgets(this.db, apiKey, budgets.scopes, budgets.subjects);
    return row && { accountId: row.account_id, secretHash: Buffer.from(row.secret_hash), budgets: row.budgets };
  }

  /**
   * The account of the dashboard user with this e-mail (any case) and password, or undefined. An
   * unknown e-mail costs one scrypt as a known one does, so response times do not tell which
   * e-mails exist; over-long input is refused before hashing, since scrypt's cost grows with it.
   */
  async dashboardAccount(email: string, password: string): Promise<string | undefined> {
    return (await this.dashboardUser(email, password))?.accountId;
  }

  /** The dashboard user with this e-mail and password, and its account (a back-office session names both). */
  async dashboardUser(email: string, password: string): Promise<DashboardUser | undefined> {
    if (email.length > 254 || password.length > 1024) return undefined;
    const row = await findDashboardUserByEmail(this.db, email);
    if (!row) {
      await verifyPassword(password, await (dummyHash ??= hashPassword(generatePassword())));
      return undefined;
    }
    return (await verifyPassword(password, row.password_hash)) ? { userId: row.id, accountId: row.account_id, email: row.email, role: row.role } : undefined;
  }

  /**
   * The account's name, time zone (the one its pages and messages show times in) and country
   * (where its shoppers' national phone numbers are read; null: the deployment's), or undefined
   * for an unknown account.
   */
  async profileOf(accountId: string): Promise<{ name: string; timeZone: string; country: string | null } | undefined> {
    const row = await accountProfile(this.db, accountId);
    return row && { name: row.name, timeZone: row.time_zone, country: row.country };
  }

  /**
   * An admin's change of the account's settings, with an audit entry for each one changed, in one
   * transaction. The zone must be one {@link timeZoneOf} knows, the country (empty: the
   * deployment's; absent: unchanged) one with a numbering plan; otherwise nothing changes and the
   * answer names the field refused.
   */
  async saveSettings(
    user: { userId: string; accountId: string; email: string },
    typed: { timeZone: string; country?: string },
  ): Promise<{ ok: true; timeZone: string; country: string | null } | { ok: false; field: 'time_zone' | 'country' }> {
    const timeZone = timeZoneOf(typed.timeZone);
    if (!timeZone) return { ok: false, field: 'time_zone' };
    const code = typed.country?.trim().toUpperCase();
    if (code && !isPhoneCountry(code)) return { ok: false, field: 'country' };
    const country = code === undefined ? undefined : code || null;
    const kept = await this.db.transaction(async (tx) => {
      const before = await setAccountSettings(tx, user.accountId, { timeZone, country });
      if (before === undefined) throw new AccountError('unknown_account', 'no such account');
      const actor = actorOf(user);
      if (before.time_zone !== timeZone)
        await recordAudit(tx, { accountId: user.accountId, actor, action: 'time_zone_set', subject: timeZone, details: { from: before.time_zone } });
      if (country !== undefined && before.country !== country) {
        await recordAudit(tx, { accountId: user.accountId, actor, action: 'country_set', ...(country ? { subject: country } : {}), details: { from: before.country } });
      }
      return before.country;
    });
    // The country as now saved: the one typed, or (absent from the form) the one kept.
    return { ok: true, timeZone, country: country === undefined ? kept : country };
  }

  /** The account of the dashboard user with this e-mail (sandbox demo shop: its own merchant, found again after a restart). */
  async accountIdByEmail(email: string): Promise<string | undefined> {
    return accountIdOfUserEmail(this.db, email);
  }

  async count(): Promise<number> {
    return countAccounts(this.db);
  }
}

/** Hash of a random password, computed once: what an unknown dashboard e-mail is checked against. */
let dummyHash: Promise<string> | undefined;

function createdOffer(o: OfferTemplate & { id: string; secret: string }): CreatedOffer {
  return {
    merchant_uid: toPublicId('mer', o.id),
    type: o.type,
    installments: o.installments,
    deferred_days: o.deferredDays,
    deposit_percent: o.depositPercent,
    max_balance_delay_days: o.maxBalanceDelayDays,
    secret: o.secret,
  };
}

/** The terms of a new offer of `choice.type`: its default ones, with the choices its type takes, each checked. */
function offerTemplate(choice: OfferChoice): OfferTemplate {
  const type = OFFER_TYPES.find((t) => t === choice.type);
  if (!type) throw new AccountError('invalid_offer', `type must be one of ${OFFER_TYPES.join(', ')}`);
  const base = DEFAULT_OFFERS.find((o) => o.type === type)!;
  const named: [keyof OfferChoice, string, OfferType, number, number][] = [
    ['installments', 'installments', 'INSTALLMENTS', 2, 12],
    ['deferredDays', 'deferred-days', 'DEFERRED', 1, 365],
    ['depositPercent', 'deposit-percent', 'DOWN_PAYMENT', 1, 99],
    ['maxBalanceDelayDays', 'max-balance-delay-days', 'DOWN_PAYMENT', 1, MAX_BALANCE_DELAY_DAYS],
  ];
  for (const [key, option, only, min, max] of named) {
    const v = choice[key];
    if (v === undefined) continue;
    if (type !== only) throw new AccountError('invalid_offer', `--${option} is for a ${only} offer only`);
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw new AccountError('invalid_offer', `--${option} must be a whole number from ${min} to ${max}`);
  }
  return {
    ...base,
    installments: choice.installments ?? base.installments,
    deferredDays: choice.deferredDays ?? base.deferredDays,
    depositPercent: choice.depositPercent ?? base.depositPercent,
    maxBalanceDelayDays: choice.maxBalanceDelayDays ?? base.maxBalanceDelayDays,
  };
}
