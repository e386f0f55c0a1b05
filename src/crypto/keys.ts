import { hkdfSync } from 'node:crypto';

/**
 * Each use of the master key gets its own derived key (HKDF-SHA256 with a purpose label), so a
 * leak or misuse in one place never yields the key of another.
 */
export function deriveKey(
  masterKey: Buffer,
  purpose:
    | 'secret-box'
    | 'access-token'
    | 'session'
    | 'dashboard-session'
    | 'sandbox-psp-notifications'
    | 'psp-challenge-relay'
    | 'psp-operation-fingerprints'
    | 'card-fingerprints'
    | 'key-check'
    | 'shopper-session'
    | 'shopper-sign-in',
): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `chipin/${purpose}/v1`, 32));
}
