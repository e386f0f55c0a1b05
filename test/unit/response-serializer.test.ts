import fc from 'fast-check';
import fastJson from 'fast-json-stringify';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { nullableAsTypeList, responseSerializer } from '../../src/http/response-serializer.ts';
import { SimulationResponse } from '../../src/http/routes/token-api/simulate-schedule.ts';

// The shapes of the API's nullable fields: a schedule or null (the eligibility answer), a
// date-time or null (disputes, reconciliation), an integer or null, a cursor or null.
const Answer = Type.Object({
  offers: Type.Array(Type.Object({ merchant_uid: Type.String(), eligible: Type.Boolean(), schedule: Type.Union([SimulationResponse, Type.Null()], { description: 'd' }) })),
  closed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  psp_cents: Type.Union([Type.Integer(), Type.Null()]),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

const day = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
const schedule = fc.record({
  INSTALLMENT: fc.array(fc.record({ amount_cents: fc.integer({ min: 1, max: 1e8 }), fees: fc.nat(1e6), payment_date: day }), { minLength: 1, maxLength: 4 }),
  debit_rate: fc.constantFrom(0, 2.5, 9.99),
  taeg: fc.double({ min: 0, max: 50, noNaN: true }).map((x) => Math.round(x * 100) / 100),
});
const answer = fc.record({
  offers: fc.array(fc.record({ merchant_uid: fc.string(), eligible: fc.boolean(), schedule: fc.option(schedule, { nil: null }) }), { maxLength: 5 }),
  closed_at: fc.option(
    fc.date({ noInvalidDate: true, min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T00:00:00Z') }).map((d) => d.toISOString()),
    { nil: null },
  ),
  psp_cents: fc.option(fc.integer(), { nil: null }),
  next_cursor: fc.option(fc.string(), { nil: null }),
});

describe('response serializer (nullable fields as a list of types)', () => {
  it('writes every answer byte for byte as the anyOf schema does, and as JSON', () => {
    const withAnyOf = fastJson(Answer);
    const serialise = responseSerializer({ schema: Answer });
    fc.assert(
      fc.property(answer, (value) => {
        const out = serialise(value);
        expect(out).toBe(withAnyOf(value));
        expect(JSON.parse(out)).toEqual(value);
      }),
    );
  });

  it("compiles `X or null` to X's schema with the type list, and leaves the route's own schema (the OpenAPI document's) as it was", () => {
    const before = JSON.stringify(Answer);
    const copied = nullableAsTypeList(Answer) as { properties: Record<string, Record<string, unknown>> };
    expect(JSON.stringify(Answer)).toBe(before);
    expect(copied.properties.closed_at).toEqual({ type: ['string', 'null'], format: 'date-time' });
    expect(copied.properties.psp_cents).toEqual({ type: ['integer', 'null'] });
    const offer = (copied.properties.offers as { items: { properties: Record<string, Record<string, unknown>> } }).items.properties;
    expect(offer.schedule).toMatchObject({ type: ['object', 'null'], description: 'd', required: ['INSTALLMENT', 'debit_rate', 'taeg'] });
    expect(offer.schedule).not.toHaveProperty('anyOf');
  });

  it('leaves every other union an anyOf', () => {
    const three = Type.Union([Type.String(), Type.Integer(), Type.Null()]);
    const literals = Type.Union([Type.Literal('a'), Type.Null()]);
    const twoTypes = Type.Union([Type.String(), Type.Integer()]);
    for (const schema of [three, twoTypes]) expect(nullableAsTypeList(schema)).toEqual(JSON.parse(JSON.stringify(schema)));
    // A literal has a type (TypeBox writes `const` with it): its null is folded, its const kept.
    expect(nullableAsTypeList(literals)).toEqual({ const: 'a', type: ['string', 'null'] });
  });
});
