/**
 * Where card data may go (docs/security.md): in a production deployment no setting a
 * merchant's admin or support user can reach — the PSP accounts API (`?verify=false` included),
 * the back-office forms, "Check again", an account already in the database, a PSP host answering
 * with a redirect — sends a card number anywhere but the PSP's own published hosts (and those the
 * operator lists in PSP_ENDPOINT_ALLOWLIST). Every real connector is tried; a local collector
 * listening on loopback must receive nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspIntegrationError } from '../../src/psp/connector.ts';
import { EndpointRefusedError } from '../../src/psp/registry.ts';
import { insertPspAccount, sealCredentials } from '../../src/psp-accounts/psp-account-repository.ts';
import { payAsLeader } from '../../src/use-cases/checkout/pay-as-leader.ts';
import { createPspAccount } from '../../src/use-cases/merchant-setup/psp-accounts.ts';
import { caller, minimalPurchase, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { form, signIn } from '../helpers/dashboard.ts';
import { internalTargets, redirector, Trap } from '../outbound/trap.ts';

const CARD = { number: '4242424242424242', expMonth: 12, expYear: 2099, cvc: '123', holderName: 'Ada Lovelace' };

/** Credentials each connector accepts as well-formed (never sent anywhere real). */
const CONNECTORS: Record<string, Record<string, string>> = {
  stripe: { secret_key: 'sk_test_51CardDataTest0000000000', webhook_secret: 'whsec_CardDataTest00000000000000' },
  adyen: { merchant_account: 'ChipinTestECOM', api_key: `AQE${'x'.repeat(40)}`, hmac_key: 'AB'.repeat(32) },
  lyra: { shop_id: '69876357', password: `testpassword_${'a'.repeat(30)}`, hmac_key: 'k'.repeat(32) },
  ogone: { pspid: 'chipintest', user_id: 'chipinapi', password: 'api-password-1', sha_in: 'sha-in-phrase-1', sha_out: 'sha-out-phrase-1', hash_algorithm: 'sha256' },
  hipay: { username: 'api.chipin-test', password: 'api-password-1', secret_passphrase: 'secret-passphrase-1' },
  dalenys: { identifier: 'CHIPIN TEST', password: 'dalenys-password-1' },
  sips: { brand: 'mercanet', merchant_id: '211000000000042', secret_key: 'sips-secret-key-1', key_version: '1' },
};

let trap: Trap;
let prod: TestApp;
let m: Caller;
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  trap = await new Trap().start();
  prod = await startTestApp({ env: 'production', publicUrl: 'https://chipin.example', jobPollIntervalMs: 0 });
  m = await caller(prod);
  session = await signIn(prod, m.merchant);
});
afterAll(async () => {
  await prod?.close();
  await trap?.close();
});

/** Every endpoint_url a merchant could try for card data: another host, each internal address form, look-alikes of the PSP's host. */
function collectorUrls(port: number): string[] {
  return [
    'https://collector.example/x',
    `http://127.0.0.1:${port}`,
    ...internalTargets(port),
    'https://api.stripe.com.collector.example',
    'https://api.stripe.com:8443',
    'http://api.stripe.com',
    'https://checkout-test.adyen.com.collector.example',
    'https://evil-checkout-live.adyenpayments.com.collector.example/checkout',
  ];
}

function api(app: TestApp, s: { cookie: string; csrf: string }, method: 'POST' | 'PATCH', url: string, body: unknown) {
  return app.server.inject({ method, url, headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
}

async function bindAndPay(app: TestApp, who: Caller, s: { cookie: string; csrf: string }, psa: string): Promise<unknown> {
  const offer = who.offer('SHARED');
  const bound = await api(app, s, 'PATCH', `/api/backoffice/offers/${offer}`, { psp_account_id: psa });
  expect(bound.statusCode, bound.body).toBe(200);
  const purchase = (await who.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 5_000 }))).json() as { id: string };
  return payAsLeader(app.services.payments, { id: purchase.id, accountId: who.accountId }, CARD, [], () => 'https://chipin.example/back').catch((e: unknown) => e);
}

describe('a production deployment sends card data to no host a merchant chooses', () => {
  it('refuses every collector endpoint_url with 400 naming endpoint_url, for every connector, ?verify=false or not', async () => {
    for (const [psp, credentials] of Object.entries(CONNECTORS)) {
      for (const endpoint of collectorUrls(trap.port)) {
        for (const query of ['?verify=false', '']) {
          const res = await api(prod, session, 'POST', `/api/backoffice/psp_accounts${query}`, { psp, environment: 'test', label: 'x', credentials, endpoint_url: endpoint });
          expect(res.statusCode, `${psp} ${endpoint}${query}: ${res.body}`).toBe(400);
          expect(res.json().error.debug).toMatch(/^field endpoint_url must be an https:\/\/ URL on one of \w+'s own hosts for test in production .*PSP_ENDPOINT_ALLOWLIST$/);
        }
      }
    }
    const saved = await prod.server.inject({ method: 'GET', url: '/api/backoffice/psp_accounts', headers: { cookie: session.cookie } });
    expect(saved.json()).toEqual([]);
    expect(trap.untouched).toBe(true);
  });

  it('refuses them when an account is changed (PATCH), in the back-office forms and through the CLI use case alike', async () => {
    for (const [psp, credentials] of Object.entries(CONNECTORS)) {
      const created = await api(prod, session, 'POST', '/api/backoffice/psp_accounts?verify=false', { psp, environment: 'test', label: psp, credentials });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as string;
      const patched = await api(prod, session, 'PATCH', `/api/backoffice/psp_accounts/${id}?verify=false`, { endpoint_url: `https://127.1:${trap.port}` });
      expect(patched.statusCode).toBe(400);
      expect(patched.json().error.debug).toContain('field endpoint_url');

      const typed = Object.fromEntries(Object.entries(credentials).map(([k, v]) => [`credentials.${k}`, v]));
      const post = (url: string, fields: Record<string, string>) =>
        prod.server.inject({
          method: 'POST',
          url,
          headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
          payload: form({ csrf: session.csrf, ...fields }),
        });
      const added = await post('/dashboard/psp-accounts', { psp, label: 'form', environment: 'test', ...typed, endpoint_url: 'https://collector.example/x', verify: 'no' });
      expect(added.statusCode).toBe(400);
      expect(added.body).toContain('must be an https:// URL on one of');
      const edited = await post(`/dashboard/psp-accounts/${id}`, { label: psp, environment: 'test', endpoint_url: `https://[::ffff:127.0.0.1]:${trap.port}`, verify: 'no' });
      expect(edited.statusCode).toBe(400);

      // `chipin psp-account create` calls this use case with the deployment's registry (the command itself: test/process/cli.test.ts).
      const cli = await createPspAccount(
        prod.services.pspAccounts,
        m.accountId,
        { psp, environment: 'test', label: 'cli', credentials, endpoint_url: 'https://10.0.0.1' },
        { verify: false },
      );
      expect(cli).toMatchObject({ kind: 'invalid', field: 'endpoint_url' });
    }
    expect(trap.untouched).toBe(true);
  });

  it("accepts another of the PSP's own hosts for the environment (a Lyra brand, an Adyen live prefix)", async () => {
    const lyra = await api(prod, session, 'POST', '/api/backoffice/psp_accounts?verify=false', {
      psp: 'lyra',
      environment: 'test',
      label: 'Systempay',
      credentials: CONNECTORS.lyra,
      endpoint_url: 'https://api.systempay.fr',
    });
    expect(lyra.statusCode, lyra.body).toBe(201);
    const adyen = await api(prod, session, 'POST', '/api/backoffice/psp_accounts?verify=false', {
      psp: 'adyen',
      environment: 'live',
      label: 'Adyen live, other prefix',
      credentials: { ...CONNECTORS.adyen, live_url_prefix: '1797a841fbb37ca7-AdyenDemo' },
      endpoint_url: 'https://5409c4fd1cc98a4e-AcmeAccount-checkout-live.adyenpayments.com/checkout',
    });
    expect(adyen.statusCode, adyen.body).toBe(201);
    const wrongEnvironment = await api(prod, session, 'POST', '/api/backoffice/psp_accounts?verify=false', {
      psp: 'ogone',
      environment: 'live',
      label: 'x',
      credentials: CONNECTORS.ogone,
      endpoint_url: 'https://ogone.test.v-psp.com/ncol/test',
    });
    expect(wrongEnvironment.statusCode).toBe(400);
  });

  it('calls no account already in the database with such an endpoint: payments and "Check again" are refused, the collector gets nothing', async () => {
    for (const [psp, credentials] of Object.entries(CONNECTORS)) {
      for (const endpoint of [`http://127.0.0.1:${trap.port}/x`, `https://localhost:${trap.port}`, `https://2130706433:${trap.port}`, 'https://collector.example']) {
        const row = await insertPspAccount(
          prod.services.db,
          {
            id: crypto.randomUUID(),
            accountId: m.accountId,
            psp,
            environment: 'test',
            label: 'old',
            credentialsEnc: sealCredentials(prod.services.box, credentials),
            endpointUrl: endpoint,
            verifiedAt: null,
          },
          new Date(),
        );
        const psa = `psa_${row.id}`;
        const built = await prod.services.psps.forAccount(m.accountId, row.id).catch((e: unknown) => e);
        expect(built, `${psp} ${endpoint}`).toBeInstanceOf(EndpointRefusedError);
        const check = await api(prod, session, 'POST', `/api/backoffice/psp_accounts/${psa}/verify`, {});
        expect(check.statusCode).toBe(400);
        expect(check.json().error.debug).toContain('field endpoint_url');
      }
      const last = (
        await prod.services.db.query<{ id: string }>('SELECT id FROM psp_accounts WHERE account_id = $1 AND psp = $2 AND label = $3 ORDER BY created_at DESC LIMIT 1', [
          m.accountId,
          psp,
          'old',
        ])
      ).rows[0]!;
      const paid = await bindAndPay(prod, m, session, `psa_${last.id}`);
      expect(paid, psp).toBeInstanceOf(EndpointRefusedError);
    }
    expect(trap.untouched).toBe(true);
  });
});

describe('a PSP host the operator allowed that answers with a redirect', () => {
  it('is never followed by any connector: the card stops at the allowed host, the collector gets nothing', async () => {
    const rogue = await redirector(() => `http://127.0.0.1:${trap.port}/stolen`);
    const allowing = await startTestApp(
      { env: 'production', publicUrl: 'https://chipin.example', jobPollIntervalMs: 0, pspEndpointAllowlist: ['localhost'] },
      { db: prod.services.db, shareDatabase: true },
    );
    try {
      const s = await signIn(allowing, m.merchant);
      for (const [psp, credentials] of Object.entries(CONNECTORS)) {
        const endpoint = psp === 'ogone' ? `http://localhost:${rogue.port}/ncol/test` : `http://localhost:${rogue.port}`;
        const verified = await api(allowing, s, 'POST', '/api/backoffice/psp_accounts', { psp, environment: 'test', label: 'proxy', credentials, endpoint_url: endpoint });
        expect(verified.statusCode, `${psp}: ${verified.body}`).toBe(502);
        const created = await api(allowing, s, 'POST', '/api/backoffice/psp_accounts?verify=false', {
          psp,
          environment: 'test',
          label: 'proxy',
          credentials,
          endpoint_url: endpoint,
        });
        expect(created.statusCode, created.body).toBe(201);
        const hits = rogue.hits.length;
        const paid = await bindAndPay(allowing, m, s, created.json().id as string);
        expect(paid, psp).toBeInstanceOf(PspIntegrationError);
        expect((paid as PspIntegrationError).message, psp).toMatch(/redirect, not followed/);
        expect(rogue.hits.length, psp).toBeGreaterThan(hits);
      }
    } finally {
      await allowing.close();
      await rogue.close();
    }
    expect(trap.untouched).toBe(true);
  });
});

describe('a redirect in a sandbox deployment', () => {
  it('is not followed either: loopback fakes are allowed there, redirects never are', async () => {
    const rogue = await redirector(() => `http://127.0.0.1:${trap.port}/stolen`);
    const sandbox = await startTestApp({ jobPollIntervalMs: 0 });
    try {
      const who = await caller(sandbox);
      const s = await signIn(sandbox, who.merchant);
      for (const [psp, credentials] of Object.entries(CONNECTORS)) {
        const endpoint = psp === 'ogone' ? `http://127.0.0.1:${rogue.port}/ncol/test` : `http://127.0.0.1:${rogue.port}`;
        const created = await api(sandbox, s, 'POST', '/api/backoffice/psp_accounts?verify=false', {
          psp,
          environment: 'test',
          label: 'fake',
          credentials,
          endpoint_url: endpoint,
        });
        expect(created.statusCode, created.body).toBe(201);
        const paid = await bindAndPay(sandbox, who, s, created.json().id as string);
        expect(paid, psp).toBeInstanceOf(PspIntegrationError);
      }
    } finally {
      await sandbox.close();
      await rogue.close();
    }
    expect(trap.untouched).toBe(true);
  });
});

describe("the allowlist is the operator's", () => {
  it('is read from PSP_ENDPOINT_ALLOWLIST only: no request field sets it', async () => {
    const res = await api(prod, session, 'POST', '/api/backoffice/psp_accounts?verify=false', {
      psp: 'stripe',
      environment: 'test',
      label: 'x',
      credentials: CONNECTORS.stripe,
      endpoint_url: 'https://collector.example',
      endpoint_allowlist: ['collector.example'],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.debug).toContain('endpoint_allowlist');
  });
});
