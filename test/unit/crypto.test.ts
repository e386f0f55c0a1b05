import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiSecretMatches, generateApiKey } from '../../src/accounts/api-keys.ts';
import { AccessTokens } from '../../src/auth/access-tokens.ts';
import { generatePassword, hashPassword, verifyPassword } from '../../src/crypto/passwords.ts';
import { Redacted } from '../../src/domain/redacted.ts';
import { SecretBox } from '../../src/crypto/secret-box.ts';

describe('SecretBox (secrets at rest)', () => {
  it('round-trips any text and never stores it in clear', () => {
    const box = new SecretBox(randomBytes(32));
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (plain) => {
        const sealed = box.seal(plain);
        expect(box.open(sealed).reveal()).toBe(plain);
        if (plain.length >= 4) expect(sealed).not.toContain(plain);
      }),
    );
  });

  it('refuses a tampered value and a value sealed under another master key', () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.seal('offer-signing-secret');
    const parts = sealed.split('.');
    const data = Buffer.from(parts[3]!, 'base64url');
    data[0] = data[0]! ^ 1;
    expect(() => box.open([...parts.slice(0, 3), data.toString('base64url')].join('.'))).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
  });
});

describe('Redacted', () => {
  it('prints [redacted] through JSON, String and util.inspect', () => {
    const holder = { secret: new Redacted('s3cr3t') };
    expect(JSON.stringify(holder)).not.toContain('s3cr3t');
    expect(String(holder.secret)).toBe('[redacted]');
    expect(inspect(holder)).not.toContain('s3cr3t');
    expect(holder.secret.reveal()).toBe('s3cr3t');
  });
});

describe('passwords', () => {
  it('hashes with scrypt (memory-hard) and verifies only the right password', async () => {
    const password = generatePassword();
    expect(password).toMatch(/^[A-Za-z0-9]{20}$/);
    const hash = await hashPassword(password);
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(hash).not.toContain(password);
    expect(await verifyPassword(password, hash)).toBe(true);
    expect(await verifyPassword(password + 'x', hash)).toBe(false);
    expect(await verifyPassword(password, 'bcrypt$whatever')).toBe(false);
  });
});

describe('API keys', () => {
  it('keeps only a hash of the secret, which matches the secret and nothing else', () => {
    const key = generateApiKey();
    expect(key.apiKey).toMatch(/^key_[0-9a-f-]{36}$/);
    expect(key.apiSecret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(key.secretHash.toString('hex')).not.toContain(key.apiSecret);
    expect(apiSecretMatches(key.apiSecret, key.secretHash)).toBe(true);
    expect(apiSecretMatches(key.apiSecret + 'x', key.secretHash)).toBe(false);
  });
});

describe('access tokens', () => {
  const tokens = new AccessTokens(randomBytes(32));
  const { token } = tokens.issue('5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70', 'key_abc');

  it('verify returns the claims the token was issued with', () => {
    const check = tokens.verify(token);
    expect(check).toMatchObject({ ok: true, claims: { accountId: '5f0c6c2e-8f7b-4d5e-9c1a-2b3c4d5e6f70', apiKey: 'key_abc' } });
  });

  it('any single-character change makes a token invalid', () => {
    fc.assert(
      fc.property(fc.nat(token.length - 1), fc.constantFrom(...'ABCabc012-_.'), (i, ch) => {
        fc.pre(token[i] !== ch);
        const altered = token.slice(0, i) + ch + token.slice(i + 1);
        // base64url's last character may carry unused bits: only a decoded change must fail.
        const check = tokens.verify(altered);
        if (check.ok) expect(Buffer.from(altered.split('.')[2] ?? '', 'base64url')).toEqual(Buffer.from(token.split('.')[2]!, 'base64url'));
      }),
    );
  });

  it('a token from another master key is refused; an old one is reported expired', () => {
    expect(new AccessTokens(randomBytes(32)).verify(token)).toEqual({ ok: false, reason: 'malformed' });
    const later = new AccessTokens(randomBytes(32), () => Date.now());
    const old = new AccessTokens(Buffer.alloc(32, 1), () => Date.now() - 600_001).issue('a', 'b').token;
    expect(new AccessTokens(Buffer.alloc(32, 1)).verify(old)).toEqual({ ok: false, reason: 'expired' });
    expect(later.verify(old).ok).toBe(false);
  });
});
