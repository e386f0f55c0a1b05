import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, type Caller } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { signIn } from '../helpers/dashboard.ts';
import { CONNECTOR_DEFINITIONS } from '../../src/psp/definitions.ts';
import { UnusableCredentialError } from '../../src/psp/connector.ts';
import { validateCredentials } from '../../src/psp/credentials.ts';
import type { CredentialField, PspEnvironment } from '../../src/psp/definition.ts';
import { DEFAULT_PSP } from '../../src/psp/registry.ts';
import { insertPspAccount, sealCredentials } from '../../src/psp-accounts/psp-account-repository.ts';
import { DASHBOARD_TEXT } from '../../src/http/backoffice/texts.ts';

/**
 * Credentials parsed for what they are (docs/psp-connectors.md#credential-checks), one row per
 * connector with a credential whose form can be checked locally beyond its pattern: a value the
 * pattern lets through but the connector cannot use is refused when saved (400 naming the field,
 * with or without the PSP's check, on creation and on rotation); one stored anyway (saved before
 * the rule) makes no notification answer 500, is logged once and shows as needing attention.
 * Keys are generated here, never fixtures.
 */

const der = (key: ReturnType<typeof generateKeyPairSync>['publicKey']) => key.export({ type: 'spki', format: 'der' }).toString('base64');
const rsa = der(generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey);
// A real public key, but not RSA: P-521's SPKI is long enough for both patterns.
const ec = der(generateKeyPairSync('ec', { namedCurve: 'secp521r1' }).publicKey);
// Base64 of bytes that are no key at all, as a sweep filling the field from its pattern makes.
const notAKey = (bytes: number) => Buffer.alloc(bytes, 0x5a).toString('base64');

interface Case {
  psp: string;
  environment: 'test' | 'live';
  /** Every credential filled, each usable. */
  good: Record<string, string>;
  field: string;
  /** Values matching the field's pattern that its connector cannot use. */
  bad: Record<string, string>;
  /** What a notification to an account holding such a value answers, GET and POST: never 500. */
  answers: { GET: number; POST: number };
}

const CASES: Case[] = [
  {
    psp: 'halyk',
    environment: 'test',
    good: { client_id: 'chipin-shop', client_secret: 'secret-12345', terminal_id: '67e34d63-102f-4bd1-898e-370781d0074d', public_key: rsa },
    field: 'public_key',
    bad: { 'not a key': notAKey(300), 'not RSA': ec },
    // ePay's postLink is unsigned: the connector refuses every notification, as with a usable key.
    answers: { GET: 401, POST: 401 },
  },
  {
    psp: 'paybox',
    environment: 'test',
    good: { site: '1999888', rank: '32', identifier: '2', cle: '1999888I', public_key: `-----BEGIN PUBLIC KEY-----${rsa}-----END PUBLIC KEY-----` },
    field: 'public_key',
    bad: { 'not a key': notAKey(150), 'not RSA': ec },
    // The RemoteMPI return is checked with the key: sent again once the merchant replaced it.
    answers: { GET: 503, POST: 503 },
  },
  {
    psp: 'adyen',
    environment: 'live',
    good: {
      merchant_account: 'ChipinShop',
      api_key: 'AQEyhmfxK4_not_a_real_key_x',
      hmac_key: 'ab'.repeat(32),
      report_api_key: 'AQEyhmfxK4_not_a_real_report',
      live_url_prefix: '1797a841fbb37ca7-AdyenDemo',
    },
    field: 'live_url_prefix',
    // Letters and digits joined by -, as the pattern wants, but longer than a DNS label allows.
    bad: { 'a host label past 63 characters': `${'a'.repeat(40)}-${'b'.repeat(10)}` },
    // The notification is checked with hmac_key, which parses: an empty or unsigned one is refused as any.
    answers: { GET: 400, POST: 400 },
  },
];

let app: TestApp;
let m: Caller;
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  app = await startTestApp();
  m = await caller(app);
  session = await signIn(app, m.merchant);
});
afterAll(async () => {
  await app?.close();
});

const api = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
  app.server.inject({ method, url, headers: { authorization: m.dashboard }, ...(body === undefined ? {} : { payload: body as object }) });

interface AccountJson {
  id: string;
  needs_attention: { field: string; message: string } | null;
}

describe.each(CASES)('$psp: $field parsed, not only patterned', (c) => {
  const def = CONNECTOR_DEFINITIONS.find((d) => d.name === c.psp)!;
  const field = def.credentialFields.find((f) => f.name === c.field)!;

  it('the good credentials are accepted without the PSP check; each bad value matches the pattern yet is refused: 400 naming the field, with or without verify, and on rotation', async () => {
    for (const [what, value] of Object.entries(c.bad)) expect(new RegExp(`^(?:${field.pattern})$`).test(value), `${what} must match the pattern`).toBe(true);

    const saved = await api('POST', '/api/backoffice/psp_accounts?verify=false', { psp: c.psp, environment: c.environment, label: 'good', credentials: c.good });
    expect(saved.statusCode, saved.body).toBe(201);
    const account = saved.json() as AccountJson;
    expect(account.needs_attention).toBeNull();

    for (const [what, value] of Object.entries(c.bad)) {
      const credentials = { ...c.good, [c.field]: value };
      // verify=true refuses it before any call to the PSP (none is reachable here).
      for (const query of ['?verify=false', '']) {
        const res = await api('POST', `/api/backoffice/psp_accounts${query}`, { psp: c.psp, environment: c.environment, label: 'bad', credentials });
        expect(res.statusCode, `${what} ${query}: ${res.body}`).toBe(400);
        const debug = (res.json() as { error: { debug: string } }).error.debug;
        expect(debug).toContain(`field credentials.${c.field} cannot be used: expected`);
        expect(debug).not.toContain(value.slice(0, 40));
      }
      const rotated = await api('PATCH', `/api/backoffice/psp_accounts/${account.id}?verify=false`, { credentials: { [c.field]: value } });
      expect(rotated.statusCode, `${what} rotated: ${rotated.body}`).toBe(400);
      expect((rotated.json() as { error: { debug: string } }).error.debug).toContain(`field credentials.${c.field}`);
    }
  });

  it('an account stored with an unusable value (saved before the rule) answers no 500 on GET or POST notifications, is logged once, and shows as needing attention', async () => {
    for (const [what, value] of Object.entries(c.bad)) {
      const row = await insertPspAccount(
        app.services.db,
        {
          id: crypto.randomUUID(),
          accountId: m.accountId,
          psp: c.psp,
          environment: c.environment,
          label: `stored ${what}`,
          credentialsEnc: sealCredentials(app.services.box, { ...c.good, [c.field]: value }),
          endpointUrl: null,
          verifiedAt: null,
        },
        new Date(),
      );
      const psa = `psa_${row.id}`;
      for (let i = 0; i < 2; i++) {
        const get = await app.server.inject({ method: 'GET', url: `/api/psp/${psa}/notifications?a=1&b=2` });
        expect(get.statusCode, `${what} GET: ${get.body}`).toBe(c.answers.GET);
        const post = await app.server.inject({ method: 'POST', url: `/api/psp/${psa}/notifications`, headers: { 'content-type': 'application/json' }, payload: '{"a":1}' });
        expect(post.statusCode, `${what} POST: ${post.body}`).toBe(c.answers.POST);
        for (const res of [get, post]) if (res.statusCode === 503) expect(res.headers['retry-after']).toBeTruthy();
      }
      const logged = app.logs.filter((l) => l.includes(psa) && l.includes('cannot use'));
      expect(logged, what).toHaveLength(1);
      expect(JSON.parse(logged[0]!)).toMatchObject({ field: `credentials.${c.field}`, psp_account_id: psa });

      const listed = (await api('GET', '/api/backoffice/psp_accounts')).json() as AccountJson[];
      const shown = listed.find((a) => a.id === psa)!;
      expect(shown.needs_attention).toMatchObject({ field: `credentials.${c.field}` });
      expect(shown.needs_attention!.message).toMatch(/^cannot be used: expected /);
      expect(((await api('GET', `/api/backoffice/psp_accounts/${psa}`)).json() as AccountJson).needs_attention).toEqual(shown.needs_attention);

      const t = DASHBOARD_TEXT.en;
      const list = await app.server.inject({ method: 'GET', url: '/dashboard/psp-accounts', headers: { cookie: session.cookie } });
      expect(list.body).toContain(t.needsAttention);
      const page = await app.server.inject({ method: 'GET', url: `/dashboard/psp-accounts/${psa}`, headers: { cookie: session.cookie } });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('id="needs-attention"');

      // A payment through it fails as a typed PSP fault naming the field, never a TypeError.
      if (c.psp === 'halyk') {
        const connector = await app.services.psps.forAccount(m.accountId, row.id);
        const attach = connector.attachPaymentMethod({ idempotencyKey: 'k1', card: { number: '4111111111111111', expMonth: 12, expYear: 2040, cvc: '123', holderName: 'A B' } });
        await expect(attach).rejects.toBeInstanceOf(UnusableCredentialError);
        await expect(attach).rejects.toMatchObject({ field: 'credentials.public_key', code: 'bad_credentials' });
      }
    }
  });
});

/** A value of `f` as a sweep fills it: from its pattern (or enum), else any short printable text. */
const valueOf = (f: CredentialField): fc.Arbitrary<string> =>
  f.enum
    ? fc.constantFrom(...f.enum)
    : f.pattern
      ? fc.stringMatching(new RegExp(`^(?:${f.pattern})$`))
      : fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.!'), minLength: 1, maxLength: 40 });

describe('every connector, every credential filled from its pattern', () => {
  it('is either refused when saved, or its connector is built: never a value that passes the save and breaks the build', () => {
    for (const def of CONNECTOR_DEFINITIONS.filter((d) => d.name !== DEFAULT_PSP)) {
      for (const environment of def.environments as readonly PspEnvironment[]) {
        const credentials = fc.record(Object.fromEntries(def.credentialFields.map((f) => [f.name, fc.option(valueOf(f), { nil: undefined, freq: 4 })])));
        fc.assert(
          fc.property(credentials, (filled) => {
            const given = Object.fromEntries(Object.entries(filled).filter((e): e is [string, string] => e[1] !== undefined));
            if (validateCredentials(def, given, environment)) return; // refused at save: 400
            expect(() => app.services.psps.build(def.name, environment, given, null), `${def.name} ${environment}`).not.toThrow();
          }),
          { numRuns: 40 },
        );
      }
    }
  });
});
