import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'chipin-config-'));
const KEY = 'a'.repeat(64);

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({ DATA_DIR: dir() });
    expect(c).toMatchObject({ port: 3000, host: '127.0.0.1', env: 'sandbox', databaseUrl: undefined, logLevel: 'info', smtpUrl: undefined });
    expect(c.publicUrl).toBe('http://127.0.0.1:3000');
    // The sandbox stops at once; production drains first (docs/deployment.md#draining).
    expect(c.shutdownDrainMs).toBe(0);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ CHIPIN_ENV: 'staging' }, 'CHIPIN_ENV'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://h/db', DATABASE_POOLER: 'session' }, 'DATABASE_POOLER'],
    [{ DATABASE_POOLER: 'transaction' }, 'DATABASE_POOLER'],
    [{ DATABASE_URL: 'postgres://h/db', DATABASE_LISTEN_URL: 'http://h/db' }, 'DATABASE_LISTEN_URL'],
    [{ DATABASE_LISTEN_URL: 'postgres://h/db' }, 'DATABASE_LISTEN_URL'],
    [{ DATABASE_READ_URL: 'postgres://replica/db' }, 'DATABASE_READ_URL'],
    [{ DATABASE_URL: 'postgres://h/db', DATABASE_READ_URL: 'http://replica/db' }, 'DATABASE_READ_URL'],
    [{ DATABASE_URL: 'postgres://h/db', DATABASE_READ_URL: 'postgres://r/db', DATABASE_READ_MAX_LAG_MS: '50' }, 'DATABASE_READ_MAX_LAG_MS'],
    [{ DATABASE_URL: 'postgres://h/db', DATABASE_READ_URL: 'postgres://r/db', DATABASE_READ_MAX_LAG_MS: '5s' }, 'DATABASE_READ_MAX_LAG_MS'],
    [{ SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL'],
    [{ MASTER_KEY: 'short' }, 'MASTER_KEY'],
    [{ CHIPIN_ENV: 'production' }, 'MASTER_KEY'],
    [{ CHIPIN_ENV: 'production', MASTER_KEY: KEY, PUBLIC_URL: 'http://shop.example' }, 'PUBLIC_URL'],
    [{ CREDIT_LENDER: 'Prêteur SA\nRCS Paris' }, 'CREDIT_LENDER'],
    [{ CREDIT_LENDER: 'x'.repeat(301) }, 'CREDIT_LENDER'],
    [{ OPERATOR_NAME: 'Chipin SAS' }, 'OPERATOR_NAME, OPERATOR_IBAN and OPERATOR_BIC go together'],
    [{ OPERATOR_NAME: 'Chipin SAS', OPERATOR_IBAN: 'FR7630006000011234567890188', OPERATOR_BIC: 'AGRIFRPP' }, 'OPERATOR_IBAN'],
    [{ OPERATOR_NAME: 'Chipin SAS', OPERATOR_IBAN: 'FR7630006000011234567890189', OPERATOR_BIC: 'COBADEFF' }, 'OPERATOR_BIC'],
    [{ OPERATOR_NAME: '北京', OPERATOR_IBAN: 'FR7630006000011234567890189', OPERATOR_BIC: 'AGRIFRPP' }, 'OPERATOR_NAME'],
    [{ PAYOUT_PAIN_FORMAT: 'pain.001.001.02' }, 'PAYOUT_PAIN_FORMAT'],
    // A hop count trusts no proxy in Fastify: every client would get the proxy's address.
    [{ TRUST_PROXY: '1' }, 'TRUST_PROXY'],
    [{ SHUTDOWN_DRAIN_MS: '-1' }, 'SHUTDOWN_DRAIN_MS'],
    [{ SHUTDOWN_DRAIN_MS: '120001' }, 'SHUTDOWN_DRAIN_MS'],
    [{ METRICS_PORT: 'abc' }, 'METRICS_PORT'],
    [{ METRICS_PORT: '0' }, 'METRICS_PORT'],
    [{ METRICS_PORT: '65536' }, 'METRICS_PORT'],
    [{ PORT: '3101', METRICS_PORT: '3101' }, 'METRICS_PORT'],
    [{ METRICS_HOST: '127.0.0.1' }, 'METRICS_HOST'],
    [{ METRICS_PORT: '9101', METRICS_HOST: 'not a host' }, 'METRICS_HOST'],
    [{ METRICS_PORT: '9101', METRICS_HOST: 'http://127.0.0.1' }, 'METRICS_HOST'],
    [{ METRICS_TOKEN: 'x'.repeat(31) }, 'METRICS_TOKEN'],
    [{ METRICS_TOKEN: `${'x'.repeat(20)} ${'y'.repeat(20)}` }, 'METRICS_TOKEN'],
    [{ METRICS_TOKEN: `${'x'.repeat(40)}"` }, 'METRICS_TOKEN'],
  ])('rejects %o with an error line naming %s', (env, name) => {
    let error: unknown;
    try {
      loadConfig({ DATA_DIR: dir(), ...env });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.some((line) => line.startsWith(name) && !line.includes('\n'))).toBe(true);
  });

  it('reads METRICS_PORT, METRICS_HOST (default 127.0.0.1) and METRICS_TOKEN (kept redacted); none set: neither', () => {
    const none = loadConfig({ DATA_DIR: dir() });
    expect(none.metricsListener).toBeUndefined();
    expect(none.metricsToken).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dir(), METRICS_PORT: '9101' }).metricsListener).toEqual({ port: 9101, host: '127.0.0.1' });
    expect(loadConfig({ DATA_DIR: dir(), METRICS_PORT: '9101', METRICS_HOST: '::1' }).metricsListener).toEqual({ port: 9101, host: '::1' });
    expect(loadConfig({ DATA_DIR: dir(), METRICS_PORT: '9101', METRICS_HOST: 'metrics.internal' }).metricsListener).toEqual({ port: 9101, host: 'metrics.internal' });
    const token = 'a1'.repeat(32);
    const c = loadConfig({ DATA_DIR: dir(), METRICS_TOKEN: token });
    expect(c.metricsToken?.reveal()).toBe(token);
    expect(JSON.stringify(c)).not.toContain(token);
  });

  it('never writes METRICS_TOKEN in its refusal', () => {
    const secret = 'Sup3rSecretButShort';
    for (const value of [secret, `${secret}${secret} x`]) {
      let error: unknown;
      try {
        loadConfig({ DATA_DIR: dir(), METRICS_TOKEN: value });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).not.toContain(secret);
    }
  });

  it('reads TRUST_PROXY as false (unset or "false"), true, or the proxies\' addresses', () => {
    expect(loadConfig({ DATA_DIR: dir() }).trustProxy).toBe(false);
    expect(loadConfig({ DATA_DIR: dir(), TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ DATA_DIR: dir(), TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ DATA_DIR: dir(), TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' }).trustProxy).toBe('127.0.0.1, 10.0.0.0/8');
  });

  it('reads DATABASE_POOLER and DATABASE_LISTEN_URL (a transaction pooler in front of PostgreSQL); none by default', () => {
    const c = loadConfig({
      DATA_DIR: dir(),
      DATABASE_URL: 'postgres://u@bouncer:6432/chipin',
      DATABASE_POOLER: 'transaction',
      DATABASE_LISTEN_URL: 'postgres://u@primary:5432/chipin',
    });
    expect([c.databasePooler, c.databaseListenUrl]).toEqual(['transaction', 'postgres://u@primary:5432/chipin']);
    const plain = loadConfig({ DATA_DIR: dir(), DATABASE_URL: 'postgres://u@primary:5432/chipin', DATABASE_POOLER: 'none' });
    expect([plain.databasePooler, plain.databaseListenUrl]).toEqual([undefined, undefined]);
    // A refused DATABASE_URL is named once: the pooler's settings beside it do not add lines.
    expect(() =>
      loadConfig({ DATA_DIR: dir(), DATABASE_URL: 'mysql://x/db', DATABASE_POOLER: 'transaction', DATABASE_LISTEN_URL: 'postgres://p/db', DATABASE_READ_URL: 'postgres://r/db' }),
    ).toThrow(expect.objectContaining({ problems: [expect.stringMatching(/^DATABASE_URL /)] }));
  });

  it('reads DATABASE_READ_URL with its staleness limit, 5000 ms by default; unset, no replica and no limit', () => {
    const base = { DATA_DIR: dir(), DATABASE_URL: 'postgres://u@primary:5432/chipin' };
    const c = loadConfig({ ...base, DATABASE_READ_URL: 'postgres://u@replica:5432/chipin' });
    expect([c.databaseReadUrl, c.databaseReadMaxLagMs]).toEqual(['postgres://u@replica:5432/chipin', 5000]);
    expect(loadConfig({ ...base, DATABASE_READ_URL: 'postgres://u@replica/chipin', DATABASE_READ_MAX_LAG_MS: '30000' }).databaseReadMaxLagMs).toBe(30000);
    const none = loadConfig(base);
    expect([none.databaseReadUrl, none.databaseReadMaxLagMs]).toEqual([undefined, undefined]);
  });

  it("reads CREDIT_LENDER, the credit offers' lender, trimmed; unset leaves it to the offers and the merchant", () => {
    expect(loadConfig({ DATA_DIR: dir(), CREDIT_LENDER: ' Chipin Crédit SAS, 75002 Paris ' }).creditLender).toBe('Chipin Crédit SAS, 75002 Paris');
    expect(loadConfig({ DATA_DIR: dir() }).creditLender).toBeUndefined();
  });

  it("reads the operator's debtor account (payouts) checked as bank details, and the pain.001 version, .09 by default; unset, no debtor", () => {
    const c = loadConfig({ DATA_DIR: dir(), OPERATOR_NAME: ' Chipin SAS ', OPERATOR_IBAN: 'fr76 3000 6000 0112 3456 7890 189', OPERATOR_BIC: 'agrifrpp' });
    expect(c.operatorDebtor).toEqual({ holderName: 'Chipin SAS', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP' });
    expect(c.payoutPainFormat).toBe('pain.001.001.09');
    expect(loadConfig({ DATA_DIR: dir(), PAYOUT_PAIN_FORMAT: 'pain.001.001.03' }).payoutPainFormat).toBe('pain.001.001.03');
    expect(loadConfig({ DATA_DIR: dir() }).operatorDebtor).toBeUndefined();
  });

  it('names every bad variable at once, one line each', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({ DATA_DIR: dir(), PORT: 'x', LOG_LEVEL: 'loud', CHIPIN_ENV: 'production' });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error?.problems.map((p) => p.split(' ')[0])).toEqual(['PORT', 'LOG_LEVEL', 'PUBLIC_URL', 'MASTER_KEY']);
  });

  it('in sandbox generates MASTER_KEY into DATA_DIR once (owner-only) and reuses it', () => {
    const d = dir();
    const first = loadConfig({ DATA_DIR: d });
    const file = join(d, 'master.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.masterKey.toString('hex'));
    expect(loadConfig({ DATA_DIR: d }).masterKey.equals(first.masterKey)).toBe(true);
  });

  it('accepts MASTER_KEY as hex or base64 and production with https PUBLIC_URL', () => {
    const c = loadConfig({ DATA_DIR: dir(), CHIPIN_ENV: 'production', MASTER_KEY: KEY, PUBLIC_URL: 'https://pay.example/' });
    expect(c.masterKey).toHaveLength(32);
    expect(c.publicUrl).toBe('https://pay.example');
    expect(c.shutdownDrainMs).toBe(5_000);
    expect(loadConfig({ DATA_DIR: dir(), CHIPIN_ENV: 'production', MASTER_KEY: KEY, PUBLIC_URL: 'https://pay.example/', SHUTDOWN_DRAIN_MS: '0' }).shutdownDrainMs).toBe(0);
    expect(loadConfig({ DATA_DIR: dir(), MASTER_KEY: Buffer.alloc(32, 7).toString('base64') }).masterKey).toEqual(Buffer.alloc(32, 7));
  });

  it("reads PSP_ENDPOINT_ALLOWLIST as the operator's list of hosts, none by default, naming the variable when malformed", () => {
    expect(loadConfig({ DATA_DIR: dir() }).pspEndpointAllowlist).toEqual([]);
    expect(loadConfig({ DATA_DIR: dir(), PSP_ENDPOINT_ALLOWLIST: ' Egress.Proxy.internal ,10.0.0.7,,' }).pspEndpointAllowlist).toEqual(['egress.proxy.internal', '10.0.0.7']);
    expect(() => loadConfig({ DATA_DIR: dir(), PSP_ENDPOINT_ALLOWLIST: 'https://collector.example/' })).toThrow(/^PSP_ENDPOINT_ALLOWLIST must be a comma-separated list/);
  });
});
