import { randomBytes, scryptSync } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { CreatedMerchant } from '../../src/accounts/accounts.ts';
import type { ChipinApp } from '../../src/app.ts';
import { parsePublicId } from '../../src/domain/ids.ts';
import type { OfferType } from '../../src/domain/offer-terms.ts';
import { basic, getToken, newMerchant } from './app.ts';

/**
 * A merchant (API key and secret, dashboard e-mail and password, default offers) with a fresh
 * access token, and shortcuts for calling the API as that merchant.
 */
export interface Caller {
  merchant: CreatedMerchant;
  token: string;
  /** The account's bare uuid (`merchant.account_id` without its `acc_` prefix), as the tables hold it. */
  accountId: string;
  /** Authorization header with the dashboard e-mail and password (back office, sandbox inbox). */
  dashboard: string;
  offer(type: OfferType, installments?: number): string;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  post(url: string, payload?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

export async function caller(app: ChipinApp, name?: string): Promise<Caller> {
  const merchant = await newMerchant(app, name);
  const token = await getToken(app, merchant);
  const auth = { authorization: `Bearer ${token}` };
  return {
    merchant,
    token,
    accountId: parsePublicId('acc', merchant.account_id)!,
    dashboard: basic(merchant.email, merchant.password),
    offer: (type, installments) => merchant.offers.find((o) => o.type === type && (installments === undefined || o.installments === installments))!.merchant_uid,
    get: (url, headers = {}) => app.server.inject({ method: 'GET', url, headers: { ...auth, ...headers } }),
    post: (url, payload, headers = {}) =>
      app.server.inject({
        method: 'POST',
        url,
        headers: { ...auth, ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        payload: payload === undefined ? undefined : JSON.stringify(payload),
      }),
  };
}

/** Two merchants of one app, each with its token: the usual pair for tenancy checks (B must not see A's objects). */
export async function twoMerchants(app: ChipinApp, names: [string, string] = ['Test Shop', 'Test Shop']): Promise<[Caller, Caller]> {
  const a = await caller(app, names[0]);
  const b = await caller(app, names[1]);
  return [a, b];
}

export const minimalPurchase = (over: Record<string, unknown> = {}) => ({
  title: 'Weekend in Lisbon',
  amount: 30_000,
  client: { email: 'leader@example.com' },
  ...over,
});

/**
 * Stores the merchant's dashboard password hashed with scrypt at N=2^10 instead of the product's
 * 2^15: the stored hash names its parameters and verifyPassword reads them (src/crypto/passwords.ts),
 * so each Basic check of `m.dashboard` costs a thirty-second of the CPU. For suites that send the
 * merchant's Basic credentials hundreds of times (test/http/fuzz.test.ts) or on every connector's
 * walk (test/psp/end-to-end-walk.ts, test/psp/restart-walk.ts), whose outcome does not depend on the hash's cost; the
 * passwords' own rules are tested in test/unit/crypto.test.ts and the sign-in suites.
 */
export async function cheapDashboardPassword(app: ChipinApp, m: Caller): Promise<void> {
  const N = 2 ** 10;
  const salt = randomBytes(16);
  const key = scryptSync(m.merchant.password.normalize('NFKC'), salt, 32, { N, r: 8, p: 1 });
  const hash = ['scrypt', N, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
  const { rowCount } = await app.services.db.query('UPDATE dashboard_users SET password_hash = $1 WHERE account_id = $2', [hash, m.accountId]);
  if (rowCount !== 1) throw new Error(`expected one dashboard user for ${m.merchant.account_id}, updated ${rowCount}`);
}
