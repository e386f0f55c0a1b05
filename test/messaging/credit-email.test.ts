import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { decoded, smtpListener } from '../helpers/smtp.ts';

/**
 * The credit mentions of the payment-link e-mail as a shopper receives it (a real SMTP listener):
 * the deployment's lender (CREDIT_LENDER), an offer's own lender and withdrawal period set through
 * `PATCH /api/backoffice/offers/{merchant_uid}`, and none of it on a pot (docs/schedules.md#credit-mentions).
 */
const LENDER = 'Chipin Crédit SAS, 10 rue de la Banque, 75002 Paris, RCS Paris 123 456 789';
const WARNING_FR = 'Un crédit vous engage et doit être remboursé. Vérifiez vos capacités de remboursement avant de vous engager.';

let smtp: Awaited<ReturnType<typeof smtpListener>>;
let app: TestApp;
let a: Caller;
beforeAll(async () => {
  smtp = await smtpListener();
  app = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, creditLender: LENDER });
  a = await caller(app);
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
const patchOffer = (uid: string, body: unknown) =>
  app.server.inject({
    method: 'PATCH',
    url: `/api/backoffice/offers/${uid}`,
    headers: { authorization: a.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

/** Sends the link of a new purchase on `offer` by e-mail, and answers the e-mail as received. */
async function linkMail(offer: string): Promise<string> {
  const email = `leader-${randomUUID()}@example.com`;
  const res = await a.post(`/api/merchants/${offer}/purchase_link`, {
    data: { title: 'Vélo', amountCents: 30_000, email, language: 'fr_FR' },
    purchase_link_settings: { send_email: true, email },
  });
  expect(res.statusCode).toBe(200);
  expect(res.json().email_has_been_sent).toBe(true);
  const got = smtp.received.find((r) => r.to.includes(email));
  return plain(decoded(got!.raw));
}

describe(`the credit e-mail's mentions (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("a 3x link names the deployment's lender, the 14-day right of withdrawal and the statutory warning, verbatim", async () => {
    const mail = await linkMail(a.offer('INSTALLMENTS', 3));
    expect(mail).toContain(`Prêteur : ${LENDER}`);
    expect(mail).toContain('Droit de rétractation : vous pouvez vous rétracter de ce crédit dans un délai de 14 jours calendaires révolus');
    expect(mail).toContain(WARNING_FR);
    expect(mail).toContain('TAEG fixe'); // beside the figures it already had
  });

  it("an offer's own lender and withdrawal period replace the defaults; 0 shows no right of withdrawal; null brings the default back", async () => {
    const uid = a.offer('INSTALLMENTS', 4);
    const set = await patchOffer(uid, { credit_lender: 'Banque Exemple SA, 1 place de la Bourse, 69002 Lyon', withdrawal_days: 0 });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ credit_lender: 'Banque Exemple SA, 1 place de la Bourse, 69002 Lyon', withdrawal_days: 0 });
    const own = await linkMail(uid);
    expect(own).toContain('Prêteur : Banque Exemple SA, 1 place de la Bourse, 69002 Lyon');
    expect(own).not.toContain(LENDER);
    expect(own).not.toContain('rétractation');
    expect(own).toContain(WARNING_FR);

    expect((await patchOffer(uid, { credit_lender: null, withdrawal_days: null })).json()).toMatchObject({ credit_lender: null, withdrawal_days: null });
    const back = await linkMail(uid);
    expect(back).toContain(`Prêteur : ${LENDER}`);
    expect(back).toContain('14 jours calendaires');
  });

  it('a pot and a free deferred payment carry no credit mention', async () => {
    for (const offer of [a.offer('SHARED'), a.offer('DEFERRED')]) {
      const mail = await linkMail(offer);
      expect(mail).not.toContain('Un crédit vous engage');
      expect(mail).not.toContain('Prêteur');
    }
  });

  it('refuses credit mentions on a pot and a period out of bounds, naming the field', async () => {
    const onPot = await patchOffer(a.offer('SHARED'), { credit_lender: 'X' });
    expect(onPot.statusCode).toBe(400);
    expect(JSON.stringify(onPot.json())).toContain('credit_lender');
    const tooLong = await patchOffer(a.offer('INSTALLMENTS', 3), { withdrawal_days: 31 });
    expect(tooLong.statusCode).toBe(400);
    expect(JSON.stringify(tooLong.json())).toContain('withdrawal_days');
    const blank = await patchOffer(a.offer('INSTALLMENTS', 3), { credit_lender: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(JSON.stringify(blank.json())).toContain('credit_lender');
  });
});
