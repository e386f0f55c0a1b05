import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { systemClock } from '../../src/domain/clock.ts';
import type { PspConnector } from '../../src/psp/connector.ts';
import { CONNECTOR_DEFINITIONS } from '../../src/psp/definitions.ts';
import { createPspRegistry, DEFAULT_PSP, PspRegistry, UnknownPspError } from '../../src/psp/registry.ts';

/** The connectors of this build, as the registry lists them (sorted). */
const BUILD = CONNECTOR_DEFINITIONS.map((d) => d.name).sort();
import { SandboxPsp } from '../../src/psp/sandbox/connector.ts';
import { openTestDatabase } from '../helpers/app.ts';
import { pspNamesInUse } from '../../src/psp-accounts/psp-account-repository.ts';

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
  await migrate(db);
});
afterAll(() => db?.close());

const opts = () => ({ db, clock: systemClock, publicUrl: 'http://127.0.0.1:3000', masterKey: randomBytes(32) });

describe('PSP registry', () => {
  it('has the sandbox connector as the default', () => {
    const registry = createPspRegistry(opts());
    expect(DEFAULT_PSP).toBe('sandbox');
    expect(registry.get('sandbox')).toBeInstanceOf(SandboxPsp);
    expect(registry.get('sandbox').sandbox).toBe(true);
    expect(registry.sandbox).toBe(registry.get('sandbox'));
    expect(registry.names).toEqual(BUILD);
    expect(BUILD).toEqual([
      'adyen',
      'braintree',
      'centralpay',
      'checkout',
      'dalenys',
      'fondy',
      'halyk',
      'hipay',
      'hyperswitch',
      'lyra',
      'mercadopago',
      'midtrans',
      'monetico',
      'ogone',
      'paybox',
      'payline',
      'sandbox',
      'sips',
      'stripe',
    ]);
    expect(registry.has('stripe')).toBe(true);
    expect(registry.has('acme')).toBe(false);
  });

  it('throws a clear error for an unknown name', () => {
    const registry = createPspRegistry(opts());
    expect(() => registry.get('acme')).toThrow(UnknownPspError);
    expect(() => registry.get('acme')).toThrow(`unknown PSP connector "acme" (this build has: ${BUILD.join(', ')})`);
  });

  it('refuses at construction: a duplicate, a bad name, an incomplete connector, no default', () => {
    const sandbox = createPspRegistry(opts()).get('sandbox');
    expect(() => new PspRegistry([sandbox, sandbox])).toThrow(/registered twice/);
    expect(() => new PspRegistry([])).toThrow(/default PSP connector "sandbox"/);
    const bad = { ...sandbox, name: 'Bad Name', sandbox: true } as unknown as PspConnector;
    expect(() => new PspRegistry([sandbox, bad])).toThrow(/must match/);
    const partial = { name: 'partial', sandbox: false, retrieve: () => undefined } as unknown as PspConnector;
    expect(() => new PspRegistry([sandbox, partial])).toThrow(/"partial" lacks attachPaymentMethod/);
  });

  it('refuses a connector definition that does not say where its PSP is', () => {
    const stripe = CONNECTOR_DEFINITIONS.find((d) => d.name === 'stripe')!;
    const { publishedHosts: _, ...nowhere } = stripe;
    expect(() => createPspRegistry({ ...opts(), definitions: [nowhere as typeof stripe] })).toThrow(/"stripe": publishedHosts.test must list the PSP's hosts/);
  });

  it('derives the same notification key in every process from the master key', async () => {
    const masterKey = randomBytes(32);
    const a = createPspRegistry({ ...opts(), masterKey }).sandbox;
    const b = createPspRegistry({ ...opts(), masterKey }).sandbox;
    const c = createPspRegistry(opts()).sandbox;
    const pm = await a.attachPaymentMethod({
      idempotencyKey: `reg-${randomBytes(8).toString('hex')}`,
      card: { number: '4242424242424242', expMonth: 12, expYear: 2099, cvc: '123', holderName: 'A' },
    });
    if (!pm.ok) throw new Error(pm.reason);
    const tx = await a.chargeOffSession({ idempotencyKey: `reg-${randomBytes(8).toString('hex')}`, paymentMethodId: pm.paymentMethodId, amountCents: 100, currency: 'EUR' });
    const n = await a.notificationFor(tx.transactionId);
    expect((await b.verifyNotification(n)).ok).toBe(true);
    expect(await c.verifyNotification(n)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('at boot, refuses offers that name a connector this build lacks', async () => {
    const registry = createPspRegistry(opts());
    registry.assertKnownPsps(await pspNamesInUse(db));
    const rollback = new Error('rollback');
    const err = await db
      .transaction(async (tx) => {
        const accountId = randomUUID();
        await tx.query("INSERT INTO accounts (id, name) VALUES ($1, 'Registry test')", [accountId]);
        await tx.query("INSERT INTO offers (id, account_id, type, psp, signing_secret_enc) VALUES ($1, $2, 'SHARED', 'acme', 'x')", [randomUUID(), accountId]);
        registry.assertKnownPsps(await pspNamesInUse(tx));
        throw rollback;
      })
      .catch((e: unknown) => e);
    expect(err).not.toBe(rollback);
    expect(String(err)).toContain(`offers use PSP connectors this build lacks: acme (this build has: ${BUILD.join(', ')})`);
  });
});
