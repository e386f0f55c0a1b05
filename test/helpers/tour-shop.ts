import { createServer, type Server } from 'node:http';
import type { LightMyRequestResponse } from 'fastify';
import type { ChipinApp } from '../../src/app.ts';
import { generatePassword, hashPassword } from '../../src/crypto/passwords.ts';
import { newUuid } from '../../src/domain/ids.ts';
import { inviteMember } from '../../src/staff/invitations.ts';
import { listPledges } from '../../src/payments/pledge-repository.ts';
import { caller, type Caller } from './api.ts';

/**
 * A travel shop with two weeks of activity, made through the public API, the back office's API
 * and the sandbox helpers (docs/testing-in-the-sandbox.md): the data every page of the tour
 * (./page-tour.ts) shows. Without vitest, for the screenshot script and the tests alike.
 */
export interface TourShop {
  base: string;
  a: Caller;
  /** The shopper who signs in to the shopper's space: a 3x plan of her own and a share of a pot. */
  shopper: string;
  /** Payment pages nobody paid on yet, one per kind of offer. */
  unpaid: { shared: string; installments: string; deferred: string; downPayment: string };
  /** Purchase ids (bare uuids) in a given state. */
  potInProgress: string;
  potPaid: string;
  plan: string;
  /** Pledge ids: one still to pay, one paid. */
  pledgeOpen: string;
  pledgePaid: string;
  delivery: string;
  invitationToken: string;
  pspAccount: string | undefined;
  /** The operator's staff member (role `operator`, docs/back-office.md#the-operators-pages), of an account of the operator's own. */
  operator: { email: string; password: string };
  /** A new unpaid purchase's payment page, for pages a payment attempt changes (a decline, a challenge). */
  fresh(offer?: string): Promise<{ id: string; payment_url: string }>;
  close(): Promise<void>;
}

const CARD = '4242424242424242';
const DECLINED = '4000000000000002';
const DISPUTED = '4000000000000259';

const TRIPS = [
  ['Weekend in Lisbon', 42_000],
  ['Surf camp, Ericeira', 68_000],
  ['Porto food tour', 15_500],
  ['Sintra day trip', 9_800],
  ['Algarve villa, 7 nights', 189_000],
  ['Douro valley cruise', 54_000],
] as const;
const CLIENTS = ['ines.costa@example.com', 'tom.baker@example.com', 'lea.martin@example.com', 'joao.silva@example.com', 'emma.schmidt@example.com'];

function ok(res: LightMyRequestResponse, what: string, status = [200, 201]): LightMyRequestResponse {
  if (!status.includes(res.statusCode)) throw new Error(`${what}: ${res.statusCode} ${res.body}`);
  return res;
}

/** Seeds the shop on `app`, served at `base`; `days` of past sales (the home page's figures). */
export async function seedTourShop(app: ChipinApp, base: string, days = 14): Promise<TourShop> {
  const a = await caller(app, 'Atlântico Travel');
  const db = app.services.db;
  const hook: Server = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  const backoffice = (method: 'PUT' | 'POST', url: string, body: unknown) =>
    app.server.inject({ method, url, headers: { authorization: a.dashboard, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  ok(
    await backoffice('PUT', `/api/backoffice/risk_rules/offers/${a.offer('INSTALLMENTS', 4)}`, { refuse_prepaid_cards: true, fallback_offers: [a.offer('SHARED')] }),
    'risk rules',
  );
  ok(await backoffice('PUT', '/api/backoffice/webhook', { url: `http://127.0.0.1:${(hook.address() as { port: number }).port}/chipin` }), 'webhook');

  const create = async (title: string, amount: number, offer: string, email = CLIENTS[0]!, ref?: string, name?: { first_name: string; last_name: string }) =>
    ok(
      await a.post('/api/merchants/v1/purchases', { title, amount, client: { email, ...name }, merchant_uid: offer, callback_url: `${base}/healthz`, ...(ref ? { ref } : {}) }),
      title,
    ).json() as {
      id: string;
      payment_url: string;
    };
  const pay = (id: string, card = CARD, pledgers: unknown[] = []) => a.post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: card, pledgers });

  let n = 0;
  for (let day = 0; day < days; day++) {
    for (let k = 0; k < 1 + ((day * 7) % 4); k++, n++) {
      const [title, amount] = TRIPS[n % TRIPS.length]!;
      const { id } = await create(title, amount, a.offer('SHARED'), CLIENTS[n % CLIENTS.length], `TRV-${2400 + n}`);
      if (n % 9 === 4) continue; // not paid yet
      if (n % 11 === 7) {
        await pay(id, DECLINED);
        continue;
      }
      const pot = n % 3 === 0;
      const share = Math.floor(amount / 3);
      ok(
        await pay(
          id,
          CARD,
          pot
            ? [
                { email: `friend${n}a@example.com`, amount_cents: share },
                { email: `friend${n}b@example.com`, amount_cents: share },
              ]
            : [],
        ),
        'pay',
      );
      if (pot && n % 2 === 0) for (const p of await listPledges(db, a.accountId, id)) await a.post(`/api/sandbox/pledges/plg_${p.id}/pay`, { card_number: CARD });
      if (n % 10 === 5) ok(await a.post(`/api/merchants/v1/purchases/${id}/refunds`, { amount: Math.floor(amount / 4), reason: 'One night cancelled' }), 'refund');
    }
    ok(await a.post('/api/sandbox/clock', { advance_seconds: 86_400 }), 'clock');
  }

  const shopper = 'ann.leroy@example.com';
  const plan = (await create('Lisbon city break, 3 nights', 36_000, a.offer('INSTALLMENTS', 3), shopper)).id;
  ok(await pay(plan), 'plan');
  // The pots whose friends' pages the tour shows: their leaders named, as a shop sends its client's name (the friends read it).
  const potInProgress = (await create('Algarve villa, 7 nights', 189_000, a.offer('SHARED'), 'hugo.petit@example.com', undefined, { first_name: 'Hugo', last_name: 'Petit' })).id;
  ok(
    await pay(potInProgress, CARD, [
      { email: shopper, name: 'Ann', amount_cents: 60_000 },
      { email: 'lina.moreau@example.com', name: 'Lina', amount_cents: 60_000 },
    ]),
    'pot',
  );
  const [pledgeOpen, pledgePaid] = (await listPledges(db, a.accountId, potInProgress)).map((p) => p.id);
  ok(await a.post(`/api/sandbox/pledges/plg_${pledgePaid}/pay`, { card_number: CARD }), 'pledge');
  const potPaid = (await create('Surf camp, Ericeira', 68_000, a.offer('SHARED'), 'tom.baker@example.com', undefined, { first_name: 'Tom', last_name: 'Baker' })).id;
  ok(await pay(potPaid, CARD, [{ email: 'sam.ward@example.com', name: 'Sam', amount_cents: 20_000 }]), 'pot paid');
  for (const p of await listPledges(db, a.accountId, potPaid)) ok(await a.post(`/api/sandbox/pledges/plg_${p.id}/pay`, { card_number: CARD }), 'pledge');
  ok(await a.post(`/api/merchants/v1/purchases/${potPaid}/refunds`, { amount: 8_000, reason: 'Board rental not taken' }), 'refund');
  const disputed = (await create('Porto food tour', 15_500, a.offer('SHARED'), 'joao.silva@example.com')).id;
  await pay(disputed, DISPUTED);

  const unpaid = {
    shared: (await create('Weekend in Lisbon', 42_000, a.offer('SHARED'))).payment_url,
    installments: (await create('Douro valley cruise', 54_000, a.offer('INSTALLMENTS', 3))).payment_url,
    deferred: (await create('Sintra day trip', 9_800, a.offer('DEFERRED'))).payment_url,
    downPayment: (await create('Surf camp, Ericeira', 68_000, a.offer('DOWN_PAYMENT'))).payment_url,
  };

  const today = new Date(app.services.clock.now()).toISOString().slice(0, 10);
  await backoffice('POST', '/api/backoffice/reconciliation_runs', { from: today, to: today });
  const psa = await app.server.inject({
    method: 'POST',
    url: '/api/backoffice/psp_accounts?verify=false',
    headers: { authorization: a.dashboard, 'content-type': 'application/json' },
    payload: JSON.stringify({ psp: 'stripe', environment: 'test', label: 'Stripe, Portugal', credentials: { secret_key: 'sk_test_51AtlanticoTravelDemoKey0000' } }),
  });
  const pspAccount = psa.statusCode === 201 ? (psa.json().id as string) : undefined;

  const invited = await inviteMember(db, a.accountId, { label: a.merchant.email }, { email: 'new.colleague@atlantico.example', role: 'support' });
  if (!invited.ok) throw new Error('the invitation was refused');
  // The operator's staff: the role is given by the CLI only (`chipin dashboard set-role`), so written here as it writes it.
  const operations = await caller(app, 'Chipin Operations');
  const operator = { email: 'ops@chipin.example', password: generatePassword() };
  await db.query('INSERT INTO dashboard_users (id, account_id, email, password_hash, role) VALUES ($1, $2, $3, $4, $5)', [
    newUuid(),
    operations.accountId,
    operator.email,
    await hashPassword(operator.password),
    'operator',
  ]);
  const delivery = (await app.services.db.query<{ id: string }>('SELECT id FROM deliveries WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1', [a.accountId])).rows[0]?.id;
  if (!delivery) throw new Error('no webhook delivery was made');

  return {
    base,
    a,
    shopper,
    unpaid,
    potInProgress,
    potPaid,
    plan,
    pledgeOpen: pledgeOpen!,
    pledgePaid: pledgePaid!,
    delivery,
    invitationToken: invited.token,
    pspAccount,
    operator,
    fresh: (offer = a.offer('SHARED')) => create('Weekend in Lisbon', 42_000, offer),
    close: () => new Promise<void>((resolve) => hook.close(() => resolve())),
  };
}
