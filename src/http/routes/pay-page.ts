import { Type } from 'typebox';
import { parsePublicId } from '../../domain/ids.ts';
import { payPage, payPageNotFound } from '../../pages/pay-page.ts';
import { PAGE_CSP } from '../../pages/html.ts';
import { findPurchaseForPage } from '../../purchases/repository.ts';
import type { Services } from '../../services.ts';
import { langFromAcceptLanguage, langOf } from '../i18n.ts';
import type { App } from '../types.ts';

/** The hosted payment page behind `payment_url` / `url`. The uid in the link is the capability. */
export function registerPayPage(app: App, { db }: Services): void {
  app.get(
    '/pay/:purchase_uid',
    { schema: { hide: true, params: Type.Object({ purchase_uid: Type.String() }) } },
    async (request, reply) => {
      const id = parsePublicId('pur', request.params.purchase_uid);
      const purchase = id ? await findPurchaseForPage(db, id) : undefined;
      void reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', PAGE_CSP)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-store');
      if (!purchase) return reply.code(404).send(payPageNotFound(langFromAcceptLanguage(request.headers['accept-language'])));
      return payPage(purchase, langOf(purchase.language));
    },
  );
}
