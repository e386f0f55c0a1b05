import { randomUUID } from 'node:crypto';

/** Prefixes of public identifiers (docs/api-conventions.md#identifiers-and-tenancy): `acc_<uuid>`, `mer_<uuid>`, `pur_<uuid>`, ... */
export type IdPrefix = 'acc' | 'mer' | 'pur' | 'plg' | 'key' | 'ref' | 'psa' | 'dsp' | 'po' | 'pex';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function newUuid(): string {
  return randomUUID();
}

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export function toPublicId(prefix: IdPrefix, uuid: string): string {
  return `${prefix}_${uuid}`;
}

/**
 * The uuid inside a public id, or `undefined` when the text is not `<prefix>_<uuid>`: callers
 * answer 404 for malformed ids exactly as for unknown ones.
 */
export function parsePublicId(prefix: IdPrefix, value: string): string | undefined {
  if (!value.startsWith(prefix + '_')) return undefined;
  const uuid = value.slice(prefix.length + 1).toLowerCase();
  return isUuid(uuid) ? uuid : undefined;
}

/**
 * The uuid of an object whose id one API shows prefixed and another bare (a purchase: `pur_<uuid>`
 * in the Token API, the uuid in Merchant API v1): either spelling, the uuid in any case;
 * `undefined` when the text is neither.
 */
export function parseEitherSpelling(prefix: IdPrefix, value: string): string | undefined {
  const bare = value.toLowerCase();
  return parsePublicId(prefix, value) ?? (isUuid(bare) ? bare : undefined);
}
