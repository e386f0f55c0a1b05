import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, isMailFrom, loadConfig } from '../../src/config.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'chipin-config-'));
const PROD = { CHIPIN_ENV: 'production', MASTER_KEY: 'a'.repeat(64), PUBLIC_URL: 'https://pay.example' };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig({ DATA_DIR: dir(), ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('messaging configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({ DATA_DIR: dir() });
    expect(c).toMatchObject({ mailFrom: 'Chipin <no-reply@chipin.invalid>', smsGatewayUrl: undefined, smsGatewayKey: undefined, smsSender: 'Chipin' });
  });

  it('reads the SMS gateway and keeps its key redacted', () => {
    const c = loadConfig({
      DATA_DIR: dir(),
      ...PROD,
      SMS_GATEWAY_URL: 'https://sms.example/v1/send',
      SMS_GATEWAY_KEY: 'sk_live_abc',
      SMS_SENDER: '+33612345678',
      MAIL_FROM: '"Shop, Inc" <pay@shop.example>',
    });
    expect(c.smsGatewayUrl).toBe('https://sms.example/v1/send');
    expect(c.smsGatewayKey?.reveal()).toBe('sk_live_abc');
    expect(JSON.stringify(c)).not.toContain('sk_live_abc');
    expect(inspect(c)).not.toContain('sk_live_abc');
    expect(c.smsSender).toBe('+33612345678');
    expect(c.mailFrom).toBe('"Shop, Inc" <pay@shop.example>');
  });

  it.each([
    [{ MAIL_FROM: 'not an address' }, 'MAIL_FROM'],
    [{ MAIL_FROM: 'a@b.example, c@d.example' }, 'MAIL_FROM'],
    [{ MAIL_FROM: 'Shop, Inc <pay@shop.example>' }, 'MAIL_FROM'],
    [{ SMS_GATEWAY_URL: 'ftp://sms.example' }, 'SMS_GATEWAY_URL'],
    [{ SMS_GATEWAY_URL: 'not a url' }, 'SMS_GATEWAY_URL'],
    [{ ...PROD, SMS_GATEWAY_URL: 'http://sms.example' }, 'SMS_GATEWAY_URL'],
    [{ SMS_GATEWAY_KEY: 'orphan' }, 'SMS_GATEWAY_KEY'],
    [{ SMS_SENDER: 'Much Too Long Name' }, 'SMS_SENDER'],
    [{ SMS_SENDER: 'Shop!' }, 'SMS_SENDER'],
  ])('rejects %o naming %s', (env, name) => {
    const lines = problems(env as Record<string, string>);
    expect(lines.some((l) => l.startsWith(name))).toBe(true);
    expect(lines.join('\n')).not.toContain('orphan'); // a key is never echoed
  });

  it('accepts the usual From forms', () => {
    for (const ok of ['no-reply@shop.example', 'Shop <no-reply@shop.example>', '"Shop, Inc." <no-reply@shop.example>', 'Boulangerie Dupont <a@b.fr>']) {
      expect(isMailFrom(ok), ok).toBe(true);
    }
    for (const bad of ['', 'Shop', 'Shop <>', 'a@b', 'Shop <a@b.example>\r\nBcc: x@y.example', '<a@b.example> extra']) {
      expect(isMailFrom(bad), bad).toBe(false);
    }
  });
});
