import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildNotification } from '../../src/delivery/notification.ts';
import { notificationSignature, notificationSigningString, verifyNotificationSignature } from '../../src/delivery/notification-signature.ts';
import { contractSignature } from './helpers.ts';

const example = JSON.parse(readFileSync(new URL('../fixtures/notification-signature.json', import.meta.url), 'utf8')) as {
  secret: string;
  body: Record<string, unknown>;
  signed_string: string;
  signature: string;
};

// Printable text without the secret's own characters, so that splitting on the secret is exact.
const value = fc.string({ maxLength: 40 }).filter((s) => !s.includes('§'));
const secretArb = fc.string({ minLength: 1, maxLength: 30 }).map((s) => `§${s}§`);
const fields = fc.record({
  created_at: value,
  error: value,
  id: value,
  reference: value,
  sandbox: fc.constantFrom('true', 'false'),
  status: fc.constantFrom('authorized', 'completed', 'failed', 'voided', 'refunded'),
});
const json = fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string(), fc.integer(), fc.boolean()), { maxKeys: 4 });

describe('back-mode notification signature (contract: Back mode, notification)', () => {
  it('reproduces the published worked example: signed string and upper-case SHA-256', () => {
    expect(notificationSigningString(example.body, example.secret)).toBe(example.signed_string);
    expect(notificationSignature(example.body, example.secret)).toBe(example.signature);
    expect(verifyNotificationSignature({ ...example.body, signature: example.signature }, example.secret)).toBe(true);
    expect(verifyNotificationSignature({ ...example.body, signature: example.signature.toLowerCase() }, example.secret)).toBe(true);
    expect(verifyNotificationSignature({ ...example.body, signature: example.signature }, 'OTHER')).toBe(false);
  });

  it('agrees with an independent implementation of the four steps, for any values and secret', () => {
    fc.assert(
      fc.property(fields, secretArb, (f, secret) => {
        expect(notificationSignature(f, secret)).toBe(contractSignature(f, secret));
      }),
    );
  });

  it('joins sorted key=value pairs with the secret between pairs only (never before the first or after the last)', () => {
    fc.assert(
      fc.property(fields, secretArb, (f, secret) => {
        const text = notificationSigningString(f, secret);
        const pairs = text.split(secret);
        expect(pairs.map((p) => p.slice(0, p.indexOf('=')))).toEqual(['created_at', 'error', 'id', 'reference', 'sandbox', 'status']);
        expect(pairs.map((p) => p.slice(p.indexOf('=') + 1))).toEqual([f.created_at, f.error, f.id, f.reference, f.sandbox, f.status]);
        expect(text.startsWith(secret)).toBe(false);
        expect(text.endsWith(secret)).toBe(false);
      }),
    );
  });

  it('ignores metadata, additional_data, signature and key order; any signed value changes it', () => {
    fc.assert(
      fc.property(fields, json, json, secretArb, fc.constantFrom('created_at', 'error', 'id', 'reference', 'status'), (f, metadata, additional, secret, key) => {
        const sig = notificationSignature(f, secret);
        const reordered = Object.fromEntries(Object.entries({ ...f, metadata, additional_data: additional, signature: 'X' }).reverse());
        expect(notificationSignature(reordered, secret)).toBe(sig);
        expect(sig).toMatch(/^[0-9A-F]{64}$/);
        expect(notificationSignature({ ...f, [key]: `${f[key as keyof typeof f]}x` }, secret)).not.toBe(sig);
      }),
    );
  });

  it('an empty value signs as "key=", and an extra PSP key (uid) is signed too', () => {
    expect(notificationSigningString({ id: '', status: 'completed' }, 'S')).toBe('id=Sstatus=completed');
    const withUid = { ...example.body, uid: 'tx_new' };
    expect(notificationSigningString(withUid, 'S')).toContain('Suid=tx_new');
    expect(notificationSignature(withUid, 'S')).toBe(contractSignature(withUid, 'S'));
  });

  it('buildNotification gives the exact body, in order, signed as the contract says', () => {
    const body = buildNotification(
      {
        transaction: { id: 'test-valid', status: 'completed', created_at: '2019-04-04T12:20:34.97138Z', error: null, additional_data: { xx: 'yy' } },
        reference: 'PLEDG_1086986786391',
        metadata: { foo: 'bar' },
        sandbox: true,
      },
      'SECRET',
    );
    expect(Object.keys(body)).toEqual(['created_at', 'id', 'additional_data', 'metadata', 'status', 'sandbox', 'error', 'reference', 'signature']);
    // additional_data also names the PSP's transaction as `charge_id` (unsigned, docs/webhooks.md#back-mode-notification).
    expect(body).toEqual({
      ...example.body,
      additional_data: { charge_id: 'test-valid', ...(example.body.additional_data as Record<string, unknown>) },
      signature: example.signature,
    });
    const failed = buildNotification(
      { transaction: { id: 't', status: 'failed', created_at: 'x', error: { code: 'do_not_honor', message: 'Card declined' } }, reference: null, metadata: {}, sandbox: false },
      'S',
    );
    expect(failed).toMatchObject({ error: 'Card declined', reference: '', sandbox: 'false', additional_data: { charge_id: 't' }, metadata: {} });
    expect(verifyNotificationSignature(failed as unknown as Record<string, unknown>, 'S')).toBe(true);
  });

  describe('the card-processor variant (Lyra REST): an added uid key, signed', () => {
    const lyraTx = {
      id: 'chipin-0123456789abcdef0123456789abcdef01234567',
      status: 'completed',
      created_at: '2026-03-04T10:15:00.000Z',
      error: '',
      processor: { uid: '971b6b3b9e364e87bfbe9886b3a75df4', legacyId: '900147', reference: 'chipin-0123456789abcdef0123456789abcdef01234567', statusLabel: 'AUTHORISED' },
    };

    it('a Lyra payment’s notification carries uid after reference, and the signature covers it (recomputed by hand)', () => {
      const body = buildNotification({ transaction: lyraTx, reference: 'ORDER-7', metadata: { a: 1 }, sandbox: false }, 'SECRET');
      expect(Object.keys(body)).toEqual(['created_at', 'id', 'additional_data', 'metadata', 'status', 'sandbox', 'error', 'reference', 'uid', 'signature']);
      expect(body.uid).toBe('971b6b3b9e364e87bfbe9886b3a75df4');
      // The contract's steps spelled out: the six standard keys and uid, sorted, the secret between pairs.
      const signed = [
        'created_at=2026-03-04T10:15:00.000Z',
        'error=',
        'id=chipin-0123456789abcdef0123456789abcdef01234567',
        'reference=ORDER-7',
        'sandbox=false',
        'status=completed',
        'uid=971b6b3b9e364e87bfbe9886b3a75df4',
      ].join('SECRET');
      expect(body.signature).toBe(createHash('sha256').update(signed, 'utf8').digest('hex').toUpperCase());
      expect(verifyNotificationSignature(body as unknown as Record<string, unknown>, 'SECRET')).toBe(true);
      expect(verifyNotificationSignature({ ...body, uid: 'another' } as unknown as Record<string, unknown>, 'SECRET')).toBe(false);
    });

    it('other PSPs’ notifications have no uid key (the published example still verifies)', () => {
      const { processor: _processor, ...standard } = lyraTx;
      expect(buildNotification({ transaction: standard, reference: null, metadata: {}, sandbox: true }, 'S')).not.toHaveProperty('uid');
    });

    it('for any values, uid is the last signed pair, changing it changes the signature, and metadata/additional_data stay unsigned', () => {
      fc.assert(
        fc.property(fields, value, value, json, json, secretArb, (f, uid, otherUid, metadata, additional, secret) => {
          fc.pre(uid !== otherUid);
          const body = { ...f, uid };
          const sig = notificationSignature(body, secret);
          expect(notificationSigningString(body, secret).split(secret).at(-1)).toBe(`uid=${uid}`);
          expect(sig).toBe(contractSignature(body, secret));
          expect(notificationSignature({ ...body, uid: otherUid }, secret)).not.toBe(sig);
          expect(notificationSignature({ ...body, metadata, additional_data: additional }, secret)).toBe(sig);
        }),
      );
    });
  });
});
