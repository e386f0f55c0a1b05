import fastJson from 'fast-json-stringify';
import { lazySerializer } from './lazy-compile.ts';

type Schema = Record<string, unknown>;

/**
 * `anyOf: [X, { type: 'null' }]` (TypeBox's `Type.Union([X, Type.Null()])`, how every nullable
 * field of the API is written) as `X` with `type: [X's type, 'null']`. Both describe the same
 * values; fast-json-stringify serialises an `anyOf` by running a schema validator on the value to
 * pick the branch (formats included: every date of a schedule, for each offer the eligibility
 * call answers), where a list of types is one `=== null` test. Returns a copy: the route's own
 * schema, which the OpenAPI document is made from, keeps its `anyOf`.
 */
export function nullableAsTypeList(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableAsTypeList);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = nullableAsTypeList(value);
  const members = copy.anyOf;
  if (!Array.isArray(members) || members.length !== 2) return copy;
  const nullAt = members.findIndex((m) => isNullOnly(m));
  const other = members[1 - nullAt] as Schema | undefined;
  if (nullAt === -1 || other === undefined || typeof other.type !== 'string') return copy;
  const { anyOf: _anyOf, ...siblings } = copy;
  return { ...other, ...siblings, type: [other.type, 'null'] };
}

function isNullOnly(member: unknown): boolean {
  return typeof member === 'object' && member !== null && Object.keys(member).length === 1 && (member as Schema).type === 'null';
}

/**
 * What was compiled per response schema object, for the process: the routes' schemas are module
 * constants, so a second server built in the same process (the test suite builds hundreds) reuses
 * the first one's serializers instead of compiling them again.
 */
const compiled = new WeakMap<object, (data: unknown) => string>();

/**
 * Fastify's serializer compiler (fast-json-stringify, as its default), on {@link nullableAsTypeList}'s
 * copy of each response schema, compiled at its first answer rather than at start (http/lazy-compile.ts).
 */
export function responseSerializer({ schema }: { schema: object }): (data: unknown) => string {
  let serialize = compiled.get(schema);
  if (!serialize) {
    serialize = lazySerializer(() => fastJson(nullableAsTypeList(schema) as Parameters<typeof fastJson>[0]));
    compiled.set(schema, serialize);
  }
  return serialize;
}
