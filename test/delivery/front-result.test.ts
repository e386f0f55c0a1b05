import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildFrontResult, frontResultHandover, frontResultJwt, processorRefused } from '../../src/delivery/front-result.ts';
import { processorData } from '../../src/psp/connector.ts';
import { transactionOf, type TransactionData } from '../../src/delivery/transaction.ts';
import { signHs256, verifyHs256 } from '../../src/delivery/jwt.ts';

const input = {
  transaction: { id: 'psp_tx_42', status: 'completed', created_at: '2026-03-04T10:15:00.000Z', error: null, amount_cents: 10_000 },
  sandbox: true,
  purchase: { uid: 'pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70', reference: 'ORDER-1', metadata: { cart: 'c-9' } },
};

/** Verification as a merchant would write it with node:crypto alone. */
function merchantVerifies(token: string, secret: string): Record<string, unknown> {
  const [h, p, s] = token.split('.');
  expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
  expect(createHmac('sha256', secret).update(`${h}.${p}`).digest('base64url')).toBe(s);
  return JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>;
}

describe('front-end result (contract: Back mode, result passed to the merchant front end)', () => {
  it('has exactly the contract structure: transaction {created_at, error, id, sandbox, status}, purchase {meta_data, reference, uid}', () => {
    expect(buildFrontResult(input)).toStrictEqual({
      transaction: { created_at: '2026-03-04T10:15:00.000Z', error: null, id: 'psp_tx_42', sandbox: true, status: 'completed' },
      purchase: { meta_data: { cart: 'c-9' }, reference: 'ORDER-1', uid: 'pur_5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70' },
    });
  });

  it('carries an error detail when the transaction failed, and an empty reference when the merchant gave none', () => {
    const r = buildFrontResult({
      ...input,
      transaction: { ...input.transaction, status: 'failed', error: { code: 'do_not_honor', message: 'Card declined' } },
      purchase: { ...input.purchase, reference: null },
    });
    expect(r.transaction.error).toEqual({ code: 'do_not_honor', message: 'Card declined' });
    expect(r.purchase.reference).toBe('');
    expect(buildFrontResult({ ...input, transaction: { ...input.transaction, error: 'insufficient funds' } }).transaction.error).toEqual({ message: 'insufficient funds' });
  });

  it('is a JWT (HS256, offer secret) that a merchant verifies with node:crypto, with iat', () => {
    const result = buildFrontResult(input);
    const token = frontResultJwt(result, 'offer-secret', new Date('2026-03-04T10:15:07.900Z'));
    expect(merchantVerifies(token, 'offer-secret')).toEqual({ ...result, iat: 1772619307 });
    expect(verifyHs256(token, 'offer-secret')).toEqual({ ...result, iat: 1772619307 });
    expect(verifyHs256(token, 'another-secret')).toBeUndefined();
  });

  it('hands over the JWT only when the offer has a secret', () => {
    expect(frontResultHandover(input, undefined)).toEqual({ result: buildFrontResult(input) });
    const h = frontResultHandover(input, 'k');
    expect(verifyHs256(h.jwt!, 'k')).toEqual(h.result);
  });

  it('HS256 round-trips any claims; tampering, alg swaps and malformed tokens are refused', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string({ minLength: 1 }), (claims, secret) => {
        const token = signHs256(claims, secret);
        expect(verifyHs256(token, secret)).toEqual(JSON.parse(JSON.stringify(claims)));
        const [h, p, s] = token.split('.');
        const forged = Buffer.from(JSON.stringify({ ...claims, admin: true })).toString('base64url');
        expect(verifyHs256(`${h}.${forged}.${s}`, secret)).toBeUndefined();
        const none = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
        expect(verifyHs256(`${none}.${p}.`, secret)).toBeUndefined();
      }),
    );
    for (const bad of ['', 'a.b', 'a.b.c.d', '!!.!!.!!']) expect(verifyHs256(bad, 'k')).toBeUndefined();
  });

  describe('the card-processor variant (Lyra REST)', () => {
    const processor = { uid: '971b6b3b9e364e87bfbe9886b3a75df4', legacyId: '900147', reference: 'chipin-ab', statusLabel: 'AUTHORISED' };
    const lyra: TransactionData = { id: 'chipin-ab', status: 'completed', created_at: '2026-03-04T10:15:00.000Z', error: '', processor };

    it('transaction carries uid (new id), reference, the old id as id and the processor label as status; the JWT signs all of it', () => {
      const r = buildFrontResult({ ...input, transaction: lyra });
      expect(r.transaction).toStrictEqual({
        created_at: '2026-03-04T10:15:00.000Z',
        error: null,
        id: '900147',
        reference: 'chipin-ab',
        sandbox: true,
        status: 'AUTHORISED',
        uid: '971b6b3b9e364e87bfbe9886b3a75df4',
      });
      expect(merchantVerifies(frontResultJwt(r, 'offer-secret'), 'offer-secret')).toEqual(r);
    });

    it('without a legacy id from Lyra, id falls back to the PSP transaction id', () => {
      expect(buildFrontResult({ ...input, transaction: { ...lyra, processor: { ...processor, legacyId: null } } }).transaction.id).toBe('chipin-ab');
    });

    it("reports every accepted Lyra label as status AUTHORISED, as the contract's variant requires (a hold, a capture)", () => {
      for (const [label, status] of [
        ['AUTHORISED_TO_VALIDATE', 'authorized'],
        ['CAPTURED', 'completed'],
        ['AUTHORISED', 'completed'],
      ] as const) {
        const r = buildFrontResult({ ...input, transaction: { ...lyra, status, processor: { ...processor, statusLabel: label } } });
        expect(r.transaction.status, label).toBe('AUTHORISED');
      }
    });

    it('an authorisation Lyra did not accept is refused (error instead of result); an accepted one, a hold, a void or another PSP is not', () => {
      const labelled = (statusLabel: string, status = 'completed'): TransactionData => ({ ...lyra, status, processor: { ...processor, statusLabel } });
      for (const label of ['UNDER_VERIFICATION', 'PENDING', 'WAITING_AUTHORISATION', 'SUSPENDED', 'PARTIALLY_AUTHORISED']) {
        expect(processorRefused(labelled(label, 'authorized')), label).toBe(true);
      }
      expect(processorRefused(labelled('AUTHORISED'))).toBe(false);
      expect(processorRefused(labelled('CAPTURED'))).toBe(false);
      expect(processorRefused(labelled('AUTHORISED_TO_VALIDATE', 'authorized'))).toBe(false);
      expect(processorRefused(labelled('CANCELLED', 'voided'))).toBe(false);
      expect(processorRefused(input.transaction)).toBe(false);
    });

    it('reads back from the payment.transaction event data as recordResult writes it', () => {
      const data = { transaction: { id: 'chipin-ab', status: 'completed', created_at: '2026-03-04T10:15:00.000Z', error: '', processor: processorData(processor) } };
      expect(transactionOf(JSON.parse(JSON.stringify(data)))).toEqual(lyra);
      expect(transactionOf({ transaction: { ...data.transaction, processor: { uid: 1 } } })).not.toHaveProperty('processor');
    });
  });
});
