import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from './keys.ts';
import { Redacted } from '../domain/redacted.ts';

const VERSION = 'v1';

/**
 * Encrypts secrets kept at rest (offer signing secrets, PSP credentials) with AES-256-GCM.
 * Stored form: `v1.<iv>.<tag>.<ciphertext>` in base64url; the version allows key rotation later.
 */
export class SecretBox {
  readonly #key: Buffer;
  constructor(masterKey: Buffer) {
    this.#key = deriveKey(masterKey, 'secret-box');
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  /** Throws when the value was altered or sealed under another master key. */
  open(sealed: string): Redacted {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('Unrecognised sealed secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
    return new Redacted(plain.toString('utf8'));
  }
}
