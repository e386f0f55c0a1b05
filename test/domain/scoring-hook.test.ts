/**
 * The pure parts of the external scoring hook (docs/risk.md#the-external-scoring-hook): the
 * `t=…,v1=…` signature both sides send (src/domain/timestamped-signature.ts, also the sandbox
 * PSP's), and what an answer must be to count (src/domain/scoring-hook.ts).
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hookAnswerSigned, parseHookAnswer } from '../../src/domain/scoring-hook.ts';
import { checkTimestamped, signatureOf, signTimestamped } from '../../src/domain/timestamped-signature.ts';

const NOW = new Date('2026-11-24T12:00:00Z');
const secret = fc.string({ minLength: 1, maxLength: 64, unit: 'binary' });
const body = fc.string({ maxLength: 400, unit: 'binary' });

describe('the timestamped signature', () => {
  it('verifies what it signed, for any body and any secret', () => {
    fc.assert(
      fc.property(secret, body, (s, b) => {
        expect(checkTimestamped(s, signTimestamped(s, b, NOW), b, NOW)).toBe('ok');
      }),
      { seed: 32, numRuns: 300 },
    );
  });

  it('fails when any single byte of the body changes', () => {
    fc.assert(
      fc.property(secret, fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (s, bytes, at, flip) => {
        // The raw body as the wire carries it: bytes read as latin1, so that one byte is one character.
        const raw = Buffer.from(bytes).toString('latin1');
        const header = signTimestamped(s, raw, NOW);
        const changed = Buffer.from(bytes);
        changed[at % changed.length]! ^= flip;
        expect(checkTimestamped(s, header, changed.toString('latin1'), NOW)).toBe('bad_signature');
      }),
      { seed: 32, numRuns: 300 },
    );
  });

  it('fails when any single byte of the signature or the timestamp changes', () => {
    fc.assert(
      fc.property(secret, body, fc.nat(), (s, b, at) => {
        const header = signTimestamped(s, b, NOW);
        // Every character of the two values (`t=<here>,v1=<here>`), not of the keys.
        const comma = header.indexOf(',');
        const digits = [...header].map((_, j) => j).filter((j) => (j >= 2 && j < comma) || j >= comma + 4);
        const i = digits[at % digits.length]!;
        const replacement = header[i] === '0' ? '1' : '0';
        const changed = header.slice(0, i) + replacement + header.slice(i + 1);
        expect(checkTimestamped(s, changed, b, NOW)).toBe('bad_signature');
      }),
      { seed: 32, numRuns: 300 },
    );
  });

  it('fails under another secret', () => {
    fc.assert(
      fc.property(secret, secret, body, (s, other, b) => {
        fc.pre(s !== other);
        expect(checkTimestamped(other, signTimestamped(s, b, NOW), b, NOW)).toBe('bad_signature');
      }),
      { seed: 32, numRuns: 200 },
    );
  });

  it('is HMAC-SHA256 of "<t>.<body>" in hex, Stripe-style', () => {
    const t = Math.floor(NOW.getTime() / 1000);
    const mac = createHmac('sha256', 'hooksec_x').update(`${t}.{"a":1}`).digest('hex');
    expect(signTimestamped('hooksec_x', '{"a":1}', NOW)).toBe(`t=${t},v1=${mac}`);
  });

  it('is stale more than 5 minutes either side, and fresh within', () => {
    const header = signTimestamped('k', 'b', NOW);
    const at = (s: number) => new Date(NOW.getTime() + s * 1000);
    expect(checkTimestamped('k', header, 'b', at(300))).toBe('ok');
    expect(checkTimestamped('k', header, 'b', at(-300))).toBe('ok');
    expect(checkTimestamped('k', header, 'b', at(301))).toBe('stale');
    expect(checkTimestamped('k', header, 'b', at(-301))).toBe('stale');
  });

  it('calls a missing or garbled header malformed', () => {
    for (const header of [undefined, '', 'v1=00', 't=1', 't=x,v1=' + '0'.repeat(64), 't=1,t=2,v1=' + '0'.repeat(64), 'nonsense'])
      expect(checkTimestamped('k', header, 'b', NOW), String(header)).toBe('malformed');
  });
});

describe("the answer's signature, bound to its request", () => {
  it('is HMAC-SHA256 of "<t>.<decision_id>.<request v1>.<answer body>"', () => {
    const t = Math.floor(NOW.getTime() / 1000);
    const request = signTimestamped('hooksec_x', '{"decision_id":"dec_1"}', NOW);
    const v1 = signatureOf(request)!;
    expect(request).toBe(`t=${t},v1=${v1}`);
    const mac = createHmac('sha256', 'hooksec_x').update(`${t}.dec_1.${v1}.{"decision":"accept"}`).digest('hex');
    expect(signTimestamped('hooksec_x', hookAnswerSigned('dec_1', v1, '{"decision":"accept"}'), NOW)).toBe(`t=${t},v1=${mac}`);
  });

  it('does not verify for another decision, another request signature, or the body alone', () => {
    fc.assert(
      fc.property(secret, fc.uuid(), fc.uuid(), body, (s, one, two, b) => {
        fc.pre(one !== two);
        const v1 = signatureOf(signTimestamped(s, one, NOW))!;
        const other = signatureOf(signTimestamped(s, two, NOW))!;
        const header = signTimestamped(s, hookAnswerSigned(one, v1, b), NOW);
        expect(checkTimestamped(s, header, hookAnswerSigned(one, v1, b), NOW)).toBe('ok');
        expect(checkTimestamped(s, header, hookAnswerSigned(two, v1, b), NOW)).toBe('bad_signature');
        expect(checkTimestamped(s, header, hookAnswerSigned(one, other, b), NOW)).toBe('bad_signature');
        expect(checkTimestamped(s, header, b, NOW)).toBe('bad_signature');
      }),
      { seed: 60, numRuns: 200 },
    );
  });

  it("reads a request header's v1, and nothing from what is not one", () => {
    const header = signTimestamped('k', 'b', NOW);
    expect(signatureOf(header)).toMatch(/^[0-9a-f]{64}$/);
    for (const h of ['', 't=1', 'v1=zz', `t=1,v1=${'0'.repeat(63)}`]) expect(signatureOf(h), h).toBeUndefined();
  });
});

describe("the hook's answer", () => {
  it('is a decision, with an optional reason code and score', () => {
    expect(parseHookAnswer('{"decision":"accept"}')).toEqual({ decision: 'accept' });
    expect(parseHookAnswer('{"decision":"refuse","reason":"FRAUD_SUSPECTED","score":12,"vendor":{"x":1}}')).toEqual({
      decision: 'refuse',
      reason: 'FRAUD_SUSPECTED',
      score: 12,
    });
    expect(parseHookAnswer('{"decision":"accept","score":0}')).toEqual({ decision: 'accept', score: 0 });
    expect(parseHookAnswer('{"decision":"accept","score":100}')).toEqual({ decision: 'accept', score: 100 });
  });

  it('is malformed otherwise', () => {
    for (const raw of [
      '',
      'accept',
      'null',
      '[]',
      '{}',
      '{"decision":"ACCEPT"}',
      '{"decision":"maybe"}',
      '{"decision":"refuse","reason":"lower_case"}',
      `{"decision":"refuse","reason":"${'A'.repeat(65)}"}`,
      '{"decision":"refuse","reason":""}',
      '{"decision":"refuse","reason":42}',
      '{"decision":"accept","score":101}',
      '{"decision":"accept","score":-1}',
      '{"decision":"accept","score":50.5}',
      '{"decision":"accept","score":"50"}',
    ])
      expect(parseHookAnswer(raw), raw).toBeUndefined();
  });
});
