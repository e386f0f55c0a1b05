/**
 * The routes' schemas compiled at their first use (src/http/lazy-compile.ts): nothing compiled
 * before, the same answers as Ajv's and fast-json-stringify's own functions after, through Fastify
 * (errors, a query string coerced, defaults filled in).
 */
import { Ajv } from 'ajv';
import Fastify from 'fastify';
import fastJson from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { compilePending, lazySerializer, lazyValidator, pendingCount } from '../../src/http/lazy-compile.ts';

describe('schemas compiled at their first use', () => {
  it('compiles nothing until the first call, then once', () => {
    compilePending();
    let compiled = 0;
    const ajv = new Ajv();
    const validate = lazyValidator(() => {
      compiled++;
      return ajv.compile({ type: 'object', required: ['a'], properties: { a: { type: 'integer' } } });
    });
    const serialize = lazySerializer(() => {
      compiled++;
      return fastJson({ type: 'object', properties: { a: { type: 'integer' } } }) as (data: unknown) => string;
    });
    expect(compiled).toBe(0);
    expect(pendingCount()).toBe(2);
    expect(validate({ a: 'x' })).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe('/a');
    expect(validate({ a: 1 })).toBe(true);
    expect(serialize({ a: 2, b: 3 })).toBe('{"a":2}');
    expect(compiled).toBe(2);
    expect(pendingCount()).toBe(0);
  });

  it('answers through Fastify as the compiled functions do: a refusal, a coerced query string, a default', async () => {
    const ajv = new Ajv({ coerceTypes: true, useDefaults: true });
    const app = Fastify();
    app.setValidatorCompiler(({ schema }) => lazyValidator(() => ajv.compile(schema)));
    app.get('/n', { schema: { querystring: { type: 'object', properties: { n: { type: 'integer' }, d: { type: 'string', default: 'x' } } } } }, async (req) => req.query);
    try {
      expect((await app.inject('/n?n=4')).json()).toEqual({ n: 4, d: 'x' });
      const refused = await app.inject('/n?n=four');
      expect(refused.statusCode).toBe(400);
      expect(refused.json().message).toContain('querystring/n must be integer');
    } finally {
      await app.close();
    }
  });
});
