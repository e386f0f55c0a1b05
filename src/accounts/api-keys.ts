import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { newUuid, toPublicId } from '../domain/ids.ts';

/** A new API key: the secret exists only in this value, once; the database keeps its hash. */
export interface NewApiKey {
  apiKey: string;
  apiSecret: string;
  secretHash: Buffer;
}

export function generateApiKey(): NewApiKey {
  const apiSecret = 'sk_' + randomBytes(32).toString('base64url');
  return { apiKey: toPublicId('key', newUuid()), apiSecret, secretHash: hashApiSecret(apiSecret) };
}

/** SHA-256 is right for a 256-bit random secret: nothing to brute-force, and it stays cheap per call. */
function hashApiSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function apiSecretMatches(secret: string, storedHash: Buffer): boolean {
  const candidate = hashApiSecret(secret);
  return candidate.length === storedHash.length && timingSafeEqual(candidate, storedHash);
}
