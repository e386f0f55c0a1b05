/**
 * The routes' schemas compiled at their first use rather than at start. Fastify compiles every
 * route's validators (Ajv) and response serializers (fast-json-stringify) while the server starts,
 * about a quarter of a start's CPU (docs/deployment.md#start-up-under-load): a restarted process under load
 * waited for the schemas of a few hundred routes it would mostly not serve for minutes. Here each
 * compiler hands Fastify a function that compiles its schema on its first call and keeps the
 * result; what it answers is the same. A schema that cannot compile then fails its route's first
 * request (500) instead of the start: `compilePending` compiles whatever is still waiting, which
 * the tests call on a built server (test/http/operations.test.ts).
 */

import type { ValidateFunction } from 'ajv';

type DataValidationCxt = Parameters<ValidateFunction>[1];

/** The lazy functions not compiled yet, by their compile step. */
const pending = new Set<() => unknown>();

/** Compiles every schema still waiting for its first use (a test, or a warm-up). */
export function compilePending(): void {
  for (const compile of [...pending]) compile();
}

/** How many schemas wait for their first use. */
export function pendingCount(): number {
  return pending.size;
}

function once<T>(compile: () => T): () => T {
  let done: { value: T } | undefined;
  const get = (): T => {
    if (!done) {
      done = { value: compile() };
      pending.delete(get);
    }
    return done.value;
  };
  pending.add(get);
  return get;
}

/**
 * A validator that compiles on its first call: `compile` is Ajv's `compile(schema)`. What Fastify
 * reads of it is kept: the call (with Ajv's data context), `errors` after it, and `schemaEnv`
 * (then Fastify passes the context, so that Ajv may coerce a root value).
 */
export function lazyValidator(compile: () => ValidateFunction): ValidateFunction {
  const get = once(compile);
  const validate = ((data: unknown, dataCxt?: DataValidationCxt) => get()(data, dataCxt)) as ValidateFunction;
  Object.defineProperties(validate, {
    errors: { get: () => get().errors },
    schemaEnv: { get: () => get().schemaEnv },
    schema: { get: () => get().schema },
  });
  return validate;
}

/** A serializer that compiles on its first call. */
export function lazySerializer(compile: () => (data: unknown) => string): (data: unknown) => string {
  const get = once(compile);
  return (data: unknown) => get()(data);
}
