import { describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/app.ts';
import { useTransferMode } from '../helpers/transfer-mode.ts';
import { compatBed } from './bed.ts';
import { fixture, type FixtureRequest } from './fixtures.ts';
import { openPage, submitCard } from './hosted-page.ts';
import { SyliusShop } from './plugins/sylius.ts';
import { CARDS } from '../use-cases/support.ts';

// Sylius in transfer mode (docs/migrating.md#front-mode-and-virtual-cards-transfer-mode): the
// transfer-mode payment notification its transfer processor takes, and its back office's refund,
// `credit_by_transfer` (fixtures/sylius/backoffice-refund.json), read from that notification's
// purchase_uid as the plugin does.

const bed = compatBed();

describe(`Sylius in transfer mode (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("the transfer processor completes the payment on Chipin's notification, and the back office's credit_by_transfer gets a 2xx JSON", async () => {
    await useTransferMode(bed.app, bed.merchant, 'INSTALLMENTS');
    const secret = bed.offer('INSTALLMENTS').secret;
    const shop = new SyliusShop('PLEDGBYSOFINCO_42_57', secret, () => Math.floor(Date.now() / 1000));
    bed.serve((r) => shop.handle(r.path, r.body));

    const start = await bed.replay(fixture('sylius', 'direct-call-signed'), 'INSTALLMENTS');
    expect(start.statusCode, start.body).toBe(303);
    const paid = await submitCard(bed.app, await openPage(bed.app, String(start.headers.location)), CARDS.ok);
    expect(paid.statusCode).toBe(303);
    await bed.deliverAll();
    expect(
      shop.handled.map((h) => [h.answer.status, h.effect]),
      shop.handled.map((h) => h.answer.body).join('\n'),
    ).toEqual([[200, 'completed']]);
    expect(Object.keys(JSON.parse(shop.handled[0]!.body) as object)).toEqual(['signature']);

    // PledgTransferRefundService: the purchase uid from the stored notification, then the token, then the refund.
    const notification = JSON.parse(Buffer.from((JSON.parse(shop.handled[0]!.body) as { signature: string }).signature.split('.')[1]!, 'base64url').toString('utf8')) as {
      purchase_uid: string;
    };
    const f = fixture('sylius', 'backoffice-refund');
    const [tokenReq, refundReq] = f.request as FixtureRequest[];
    const { api_key, api_secret } = bed.merchant.merchant;
    const token = await bed.app.server.inject({
      method: 'POST',
      url: tokenReq!.path,
      headers: { ...tokenReq!.headers, authorization: `Basic ${Buffer.from(`${api_key}:${api_secret}`).toString('base64')}` },
      payload: tokenReq!.body,
    });
    const refund = await bed.app.server.inject({
      method: refundReq!.method,
      url: refundReq!.path.replace('{{purchaseUid}}', notification.purchase_uid),
      headers: { ...refundReq!.headers, authorization: `Bearer ${token.json().access_token}` },
      payload: refundReq!.body,
    });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ purchase_uid: notification.purchase_uid, amount_cents: 2_500, state: 'succeeded' });
  });
});
