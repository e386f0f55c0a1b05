import { readFileSync } from 'node:fs';
import { Type } from 'typebox';
import { AccountError } from '../../../accounts/accounts.ts';
import { parsePublicId } from '../../../domain/ids.ts';
import { paymentPageUrl } from '../../../domain/links.ts';
import { DEMO_SHOP_CSP, DEMO_SHOP_PRICE_CENTS, demoShopPage } from '../../../sandbox/demo-shop-page.ts';
import { DEMO_SHOP_TEXT } from '../../../sandbox/demo-shop-texts.ts';
import { LANGS, langFromAcceptLanguage, langOf, languageTag } from '../../../i18n/lang.ts';
import { sdkBundle } from '../../../sdk/build.ts';
import { repoFile } from '../../../source-files.ts';
import type { Services } from '../../../services.ts';
import { createPurchase } from '../../../use-cases/checkout/create-purchase.ts';
import { frontResultJwtValid } from '../../../use-cases/checkout/leader-front-result.ts';
import type { App } from '../../types.ts';

const SCRIPT = readFileSync(repoFile('src/sandbox/assets/demo-shop.js'), 'utf8');
/** The demo shop's own merchant account, separate from any developer's (found again after a restart). */
const DEMO_SHOP_EMAIL = 'demo-shop@chipin.test';

/**
 * The sandbox demo shop: a merchant's page with chipin.js, and the two calls a shop's back end
 * makes (create the purchase with its API key; verify the JWT with its offer secret). Sandbox
 * only (not registered in production); no credentials, since it acts for its own demo account only.
 */
export function registerSandboxDemoShop(app: App, services: Services): void {
  const { accounts, offers, config, db, clock, psps } = services;
  let account: Promise<string> | undefined;

  async function demoAccount(): Promise<string> {
    const found = await accounts.accountIdByEmail(DEMO_SHOP_EMAIL);
    if (found) return found;
    try {
      return parsePublicId('acc', (await accounts.createMerchant({ name: 'Demo Shop', email: DEMO_SHOP_EMAIL })).account_id)!;
    } catch (e) {
      // Another process created it first.
      if (e instanceof AccountError && e.code === 'email_taken') return (await accounts.accountIdByEmail(DEMO_SHOP_EMAIL))!;
      throw e;
    }
  }

  const querystring = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 16 })) }, { additionalProperties: true });
  app.get('/sandbox/demo-shop', { schema: { hide: true, querystring } }, async (request, reply) => {
    // As the hosted pages: the visitor's choice (`?lang=`, the page's link), else the browser's (docs/front-end.md).
    const asked = request.query.lang;
    const lang = asked ? langOf(asked) : langFromAcceptLanguage(request.headers['accept-language']);
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', DEMO_SHOP_CSP)
      .header('cache-control', 'no-store')
      .send(demoShopPage({ src: '/sdk/v1/chipin.js', integrity: sdkBundle().integrity }, lang));
  });

  app.get('/sandbox/demo-shop/shop.js', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(SCRIPT);
  });

  app.post(
    '/sandbox/demo-shop/purchases',
    {
      schema: {
        hide: true,
        body: Type.Object({ kind: Type.Union([Type.Literal('installments'), Type.Literal('shared')]), lang: Type.Optional(Type.Union(LANGS.map((l) => Type.Literal(l)))) }),
      },
    },
    async (request, reply) => {
      account ??= demoAccount();
      const accountId = await account.catch((e: unknown) => {
        account = undefined;
        throw e;
      });
      const lang = request.body.lang ?? 'en';
      const list = await offers.list(accountId);
      const offer = request.body.kind === 'shared' ? list.find((o) => o.type === 'SHARED') : list.find((o) => o.type === 'INSTALLMENTS' && o.installments === 3);
      const created = await createPurchase(
        { db, clock, offers, psps },
        {
          accountId,
          merchantUid: offer ? `mer_${offer.id}` : undefined,
          // The shop's page language is the purchase's: the overlay opens in it.
          title: DEMO_SHOP_TEXT[lang].product,
          amountCents: DEMO_SHOP_PRICE_CENTS,
          language: languageTag(lang),
          callbackUrl: `${config.publicUrl}/sandbox/demo-shop`,
          client: { email: 'shopper@example.com', firstName: 'Léa' },
          metadata: { demo: true },
        },
      );
      if (created.kind !== 'created') return reply.code(500).send({ error: `demo purchase not created: ${created.kind}` });
      return reply.code(201).send({ purchase_uid: `pur_${created.purchase.id}`, payment_url: paymentPageUrl(config.publicUrl, created.purchase.id) });
    },
  );

  // What a shop's server does with the JWT: verify it with the offer's secret (docs/front-end.md).
  app.post('/sandbox/demo-shop/verify', { schema: { hide: true, body: Type.Object({ jwt: Type.String({ maxLength: 16_384 }) }) } }, async (request, reply) => {
    const demo = await accounts.accountIdByEmail(DEMO_SHOP_EMAIL);
    let uid: unknown;
    try {
      uid = (JSON.parse(Buffer.from(request.body.jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { purchase?: { uid?: unknown } }).purchase?.uid;
    } catch {
      uid = undefined;
    }
    const id = typeof uid === 'string' ? parsePublicId('pur', uid) : undefined;
    const valid = id ? await frontResultJwtValid(services, demo, id, request.body.jwt) : false;
    return reply.send({ valid });
  });
}
