/**
 * A PSP notification about several transactions at once (Adyen's batched webhooks: several
 * `notificationItems` in one call when batching is enabled on the endpoint) is applied to every
 * payment it reports on, not only the first; one badly signed item refuses the whole batch and
 * changes nothing (docs/psp/adyen.md#notifications).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '../../src/domain/ids.ts';
import { notificationBody, type NotificationItem } from '../../src/psp/adyen/notifications.ts';
import { caller, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { adyenHarness, type AdyenHarness } from '../psp/fixtures/adyen/harness.ts';

let db: IsolatedDatabase;
let app: TestApp;
let adyen: AdyenHarness;
let m: Caller;
let psa: string;

beforeAll(async () => {
  db = await isolatedDatabase();
  app = await startTestApp({ jobPollIntervalMs: 0 }, { db: db.open() });
  adyen = await adyenHarness();
  m = await caller(app);
  const created = await m.post(
    '/api/backoffice/psp_accounts',
    {
      psp: 'adyen',
      environment: 'test',
      label: 'Adyen',
      credentials: adyen.credentials,
      endpoint_url: adyen.fake.url,
    },
    { authorization: m.dashboard },
  );
  expect(created.statusCode, created.body).toBe(201);
  psa = created.json().id as string;
  const bound = await app.server.inject({
    method: 'PATCH',
    url: `/api/backoffice/offers/${m.offer('DEFERRED')}`,
    headers: { authorization: m.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify({ psp_account_id: psa }),
  });
  expect(bound.statusCode, bound.body).toBe(200);
});
afterAll(async () => {
  await app?.close();
  await adyen?.teardown();
  await db?.dispose();
});

/** A deferred purchase paid on the Adyen account: its hold, authorised. */
async function heldPayment(amountCents: number): Promise<{ paymentId: string; pspReference: string }> {
  const res = await m.post(`/api/merchants/${m.offer('DEFERRED')}/purchase_link`, {
    data: { title: 'Batch', amountCents, email: 'leader@example.com', language: 'en_GB', reference: `batch-${randomUUID()}` },
    purchase_link_settings: {},
  });
  expect(res.statusCode, res.body).toBe(200);
  const id = parsePublicId('pur', (res.json() as { purchase_uid: string }).purchase_uid)!;
  const paid = await m.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: adyen.cards.success.number });
  expect(paid.statusCode, paid.body).toBe(200);
  const { rows } = await app.services.db.query<{ id: string; status: string; psp_transaction_id: string }>(
    'SELECT id, status, psp_transaction_id FROM payments WHERE purchase_id = $1',
    [id],
  );
  expect(rows.map((r) => r.status)).toEqual(['authorized']);
  return { paymentId: rows[0]!.id, pspReference: rows[0]!.psp_transaction_id };
}

const statusOf = async (paymentId: string) => (await app.services.db.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [paymentId])).rows[0]!.status;

/** Adyen's CANCELLATION item for a hold released at Adyen (out of band: from its Customer Area). */
function cancellation(pspReference: string, amountCents: number): NotificationItem {
  return {
    pspReference: `MOD${randomUUID().replace(/-/g, '').slice(0, 13).toUpperCase()}`,
    originalReference: pspReference,
    merchantAccountCode: adyen.credentials.merchant_account,
    merchantReference: 'batch',
    amount: { value: amountCents, currency: 'EUR' },
    eventCode: 'CANCELLATION',
    success: 'true',
  };
}

const post = (rawBody: string) => app.server.inject({ method: 'POST', url: `/api/psp/${psa}/notifications`, headers: { 'content-type': 'application/json' }, payload: rawBody });

describe('a batched PSP notification', () => {
  it('applies every transaction of the batch, each from its own items, and acknowledges once', async () => {
    const one = await heldPayment(5_000);
    const two = await heldPayment(7_000);
    const res = await post(notificationBody(adyen.credentials.hmac_key, [cancellation(one.pspReference, 5_000), cancellation(two.pspReference, 7_000)]));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toBe('[accepted]');
    expect([await statusOf(one.paymentId), await statusOf(two.paymentId)]).toEqual(['voided', 'voided']);
  });

  it('refuses the whole batch when one item is badly signed, and changes no payment', async () => {
    const one = await heldPayment(5_000);
    const two = await heldPayment(7_000);
    const body = JSON.parse(notificationBody(adyen.credentials.hmac_key, [cancellation(one.pspReference, 5_000), cancellation(two.pspReference, 7_000)])) as {
      notificationItems: { NotificationRequestItem: NotificationItem }[];
    };
    body.notificationItems[1]!.NotificationRequestItem.success = 'false';
    const res = await post(JSON.stringify(body));
    expect(res.statusCode).toBe(401);
    expect([await statusOf(one.paymentId), await statusOf(two.paymentId)]).toEqual(['authorized', 'authorized']);
  });
});
