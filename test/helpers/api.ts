import type { LightMyRequestResponse } from 'fastify';
import type { CreatedMerchant } from '../../src/accounts/accounts.ts';
import type { TestApp } from './app.ts';
import { getToken, newMerchant } from './app.ts';

/** A merchant with a fresh access token, and shortcuts for calling the API as that merchant. */
export interface Caller {
  merchant: CreatedMerchant;
  token: string;
  offer(type: 'SHARED' | 'INSTALLMENTS' | 'DEFERRED', installments?: number): string;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  post(url: string, payload?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

export async function caller(app: TestApp): Promise<Caller> {
  const merchant = await newMerchant(app);
  const token = await getToken(app, merchant);
  const auth = { authorization: `Bearer ${token}` };
  return {
    merchant,
    token,
    offer: (type, installments) =>
      merchant.offers.find((o) => o.type === type && (installments === undefined || o.installments === installments))!.merchant_uid,
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

export const minimalPurchase = (over: Record<string, unknown> = {}) => ({
  title: 'Weekend in Lisbon',
  amount: 30_000,
  client: { email: 'leader@example.com' },
  ...over,
});
