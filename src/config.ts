import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { splitHosts } from './db/host-list.ts';
import { Redacted } from './domain/redacted.ts';
import { isEmailAddress } from './domain/email.ts';
import { isPhoneCountry } from './i18n/countries.ts';
import type { CountryCode } from 'libphonenumber-js/min';
import { checkBankDetails, type BankDetails } from './payouts/bank-details.ts';
import { DEFAULT_PAIN_FORMAT, PAIN_FORMATS, type PainFormat } from './payouts/pain001.ts';

/** Validated configuration. Built once at boot by {@link loadConfig}; nothing else reads `process.env`. */
export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  /** PostgreSQL server URL; `undefined` means the embedded PGlite database in `dataDir`. */
  databaseUrl: string | undefined;
  /**
   * `transaction` when `databaseUrl` reaches PostgreSQL through a pooler in transaction mode
   * (PgBouncer `pool_mode = transaction`): no server-side named statements, and LISTEN only on
   * {@link databaseListenUrl} (docs/deployment.md#pgbouncer). Absent: a direct connection.
   */
  databasePooler?: 'transaction';
  /** A connection for LISTEN that is not pooled per transaction (direct, or a session-mode pool). */
  databaseListenUrl?: string;
  /**
   * A streaming replica for the back office's lists, exports, home figures and reports, used
   * while its staleness is at most {@link databaseReadMaxLagMs}; else those read the primary
   * (docs/deployment.md#read-replicas). Absent: everything reads `databaseUrl`.
   */
  databaseReadUrl?: string;
  /** The staleness beyond which the replica's reads go to the primary. Default 5000. */
  databaseReadMaxLagMs?: number;
  dataDir: string;
  env: 'sandbox' | 'production';
  /** 32-byte key that encrypts stored secrets and signs access tokens. */
  masterKey: Buffer;
  /**
   * Where `masterKey` came from, for messages (never the key): the `MASTER_KEY` environment
   * variable or the sandbox's key file. Absent: "the configured master key".
   */
  masterKeySource?: string;
  smtpUrl: string | undefined;
  /** From header of outgoing e-mail (`Name <address>` or a bare address). */
  mailFrom: string;
  /** HTTP SMS gateway endpoint; `undefined`: sandbox gateway in sandbox, no SMS in production. */
  smsGatewayUrl: string | undefined;
  /** Bearer key of the SMS gateway (a secret: never logged). */
  smsGatewayKey: Redacted | undefined;
  /** Sender name or number shown on SMS. */
  smsSender: string;
  /**
   * The shops' country (ISO 3166 alpha-2): national phone numbers typed on the pages are read in
   * it when the shopper's own is not known (docs/messaging.md, "Phone numbers"). Absent: `FR`.
   */
  merchantCountry?: CountryCode;
  logLevel: LogLevel;
  /** Fastify `trustProxy`: whose X-Forwarded-For to believe for the client address (all, none, or these addresses). */
  trustProxy: boolean | string;
  /** How often each process polls for due jobs (ms); 0 = never (only the sandbox clock runs them). Absent: 1000. */
  jobPollIntervalMs?: number;
  /**
   * On SIGTERM, how long (ms) the process answers `/readyz` 503 while still serving, before it
   * closes its listener, so that the balancer sends it nothing new (docs/deployment.md#draining).
   * Absent: 5000 in production, 0 in the sandbox.
   */
  shutdownDrainMs?: number;
  /** Requests per minute per client address on the public schedule simulation. Absent: 60. */
  simulationRateLimit?: number;
  /**
   * Hosts (names or IP addresses) that webhooks and notifications may reach although they resolve
   * to loopback, private or link-local addresses, refused otherwise in production. Absent: none.
   */
  webhookAllowedHosts?: string[];
  /**
   * Hosts a PSP account's `endpoint_url` may name in production beside its PSP's own published
   * hosts (a PSP's host this build does not list yet, an egress proxy of the operator's); they may
   * also use plain http and resolve to internal addresses. An operator setting, never a merchant's.
   * Absent: none (docs/security.md).
   */
  pspEndpointAllowlist?: string[];
  /**
   * The lender's identity shown with every credit offer (name, legal form, address, registration),
   * unless an offer names its own; absent: the merchant (docs/schedules.md#credit-mentions).
   */
  creditLender?: string;
  /**
   * Days a payment-time risk decision is kept before the hourly purge deletes it
   * (docs/risk.md#retention). Absent: {@link DEFAULT_RISK_DECISION_RETENTION_DAYS}.
   */
  riskDecisionRetentionDays?: number;
  /**
   * The operator's bank account the merchants' payouts are paid from, the debtor of the pain.001
   * file (OPERATOR_NAME, OPERATOR_IBAN, OPERATOR_BIC, all three or none), and the account a shopper
   * paying a transfer-mode purchase by bank transfer is told to pay (docs/money-operations.md#payment-by-transfer).
   * Absent: payouts are made but no file can be exported, and payment by transfer is not offered
   * (docs/deployment.md#payouts).
   */
  operatorDebtor?: BankDetails;
  /** The pain.001 version the operator's bank takes (PAYOUT_PAIN_FORMAT). Absent: {@link DEFAULT_PAIN_FORMAT}. */
  payoutPainFormat?: PainFormat;
  /**
   * Hours a merchant's payouts are held after an admin replaces the IBAN they go to
   * (PAYOUT_BANK_DETAILS_HOLD_HOURS, service clock; 0: none), unless the operator releases them
   * first (docs/money-operations.md#bank-details). Absent: {@link DEFAULT_PAYOUT_BANK_DETAILS_HOLD_HOURS}.
   */
  payoutBankDetailsHoldHours?: number;
  /**
   * A second listener serving only `GET /metrics` (METRICS_PORT, METRICS_HOST); the main listener
   * then answers 404 there (docs/deployment.md#metrics-and-alerts). Absent: no second listener.
   */
  metricsListener?: { port: number; host: string };
  /**
   * The bearer token `/metrics` asks for wherever it is served (METRICS_TOKEN; a secret: never
   * logged). Absent: none asked. In production with neither this nor {@link metricsListener},
   * `/metrics` is not served.
   */
  metricsToken?: Redacted;
}

/** The shortest METRICS_TOKEN accepted: 32 characters (e.g. `openssl rand -hex 32` gives 64). */
const METRICS_TOKEN_MIN_LENGTH = 32;

/** 400 days: 13 months, the longest card chargeback window (120 days after a due date up to a year away) with a margin. */
export const DEFAULT_RISK_DECISION_RETENTION_DAYS = 400;

/** 3 days: time for the account's admins, told by e-mail, to see a change they did not make and call the operator. */
export const DEFAULT_PAYOUT_BANK_DETAILS_HOLD_HOURS = 72;

type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Configuration that cannot be used: one line per bad variable, each starting with its name. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

type Env = Record<string, string | undefined>;

/** Each reader returns the value or throws a one-line message naming its variable. */
class Problem extends Error {}

function nonEmpty(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function parseUrl(name: string, raw: string, protocols: string[]): string {
  // A database URL may name several hosts, `postgres://u@h1:6432,h2:6432/db` (db/host-list.ts): each is checked.
  for (const one of protocols.includes('postgres:') ? splitHosts(raw) : [raw]) {
    let url: URL;
    try {
      url = new URL(one);
    } catch {
      throw new Problem(`${name} must be a URL (${protocols.join(', ')}), got an unparsable value`);
    }
    if (!protocols.includes(url.protocol)) throw new Problem(`${name} must use one of ${protocols.join(', ')}, got "${url.protocol}"`);
  }
  return raw;
}

/** Accepts 64 hex characters or base64 / base64url of exactly 32 bytes. */
function parseMasterKey(raw: string, source: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(raw) ? Buffer.from(raw, 'base64') : undefined;
  if (!key || key.length !== 32) {
    throw new Problem(`${source} must be 32 bytes as 64 hex characters or base64 (e.g. "openssl rand -hex 32")`);
  }
  return key;
}

function loadMasterKey(env: Env, mode: Config['env'] | undefined, dataDir: string, mayCreate: boolean): Buffer {
  const raw = nonEmpty(env, 'MASTER_KEY');
  if (raw) return parseMasterKey(raw, 'MASTER_KEY');
  if (mode === 'production') {
    throw new Problem('MASTER_KEY is required when CHIPIN_ENV=production (generate one with "openssl rand -hex 32")');
  }
  // Sandbox convenience: a key generated once and kept beside the embedded data, so restarts
  // can still decrypt what was stored.
  const file = join(dataDir, 'master.key');
  if (existsSync(file)) return parseMasterKey(readFileSync(file, 'utf8').trim(), `MASTER_KEY file ${file}`);
  if (!mayCreate) return Buffer.alloc(0); // a refused configuration writes nothing
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}

/** The country of the shops a deployment serves when MERCHANT_COUNTRY is unset. */
export const DEFAULT_MERCHANT_COUNTRY = 'FR';
const DEFAULT_MAIL_FROM = 'Chipin <no-reply@chipin.invalid>';

// A display name is plain words (no comma or semicolon, which would start a second address) or quoted.
const MAIL_NAMED = /^(?:[^<>",;\r\n]*|\s*"[^"\r\n]*"\s*)<([^<>]+)>$/;

/** `address`, `Display Name <address>` or `"Display, Name" <address>`, on one line, with a plain address. */
export function isMailFrom(value: string): boolean {
  if (value.length > 320) return false;
  const named = MAIL_NAMED.exec(value);
  return isEmailAddress(named ? named[1]! : value);
}

/**
 * What each section's reader is handed: the environment, the problems found so far (in the order
 * the variables are read, which is the order {@link ConfigError} names them), and `read`, which
 * runs one variable's check and, when it throws a {@link Problem}, records it and takes `fallback`.
 */
interface Reader {
  env: Env;
  problems: string[];
  read<T>(fn: () => T, fallback: T): T;
}

function portNumber(name: string, raw: string): number {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) throw new Problem(`${name} must be an integer between 1 and 65535, got "${raw}"`);
  return Number(raw);
}

/** PORT, HOST, CHIPIN_ENV and LOG_LEVEL. `mode` is undefined when CHIPIN_ENV is refused. */
function readServer({ env, read }: Reader) {
  const port = read(() => {
    const raw = nonEmpty(env, 'PORT');
    // Not 0 (any free port): links and the demo banner are built from PORT before listening.
    return raw === undefined ? 3000 : portNumber('PORT', raw);
  }, 3000);
  const host = nonEmpty(env, 'HOST') ?? '127.0.0.1';
  const mode = read((): Config['env'] | undefined => {
    const raw = nonEmpty(env, 'CHIPIN_ENV') ?? 'sandbox';
    if (raw !== 'sandbox' && raw !== 'production') throw new Problem(`CHIPIN_ENV must be "sandbox" or "production", got "${raw}"`);
    return raw;
  }, undefined);
  const logLevel = read(() => {
    const raw = (nonEmpty(env, 'LOG_LEVEL') ?? 'info').toLowerCase();
    if (!LOG_LEVELS.includes(raw as LogLevel)) throw new Problem(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
    return raw as LogLevel;
  }, 'info');
  return { port, host, mode, logLevel };
}

/** DATABASE_URL and what goes with it: a transaction pooler, a LISTEN connection, a read replica (docs/deployment.md). */
function readDatabase({ env, read }: Reader) {
  const postgres = ['postgres:', 'postgresql:'];
  const databaseUrl = read(() => {
    const raw = nonEmpty(env, 'DATABASE_URL');
    return raw === undefined ? undefined : parseUrl('DATABASE_URL', raw, postgres);
  }, undefined);
  const databasePooler = read((): 'transaction' | undefined => {
    const raw = nonEmpty(env, 'DATABASE_POOLER');
    if (raw === undefined || raw === 'none') return undefined;
    if (raw !== 'transaction') throw new Problem(`DATABASE_POOLER must be "none" or "transaction", got "${raw}"`);
    // A DATABASE_URL refused above is named once, not again here.
    if (nonEmpty(env, 'DATABASE_URL') === undefined) throw new Problem('DATABASE_POOLER needs DATABASE_URL (the embedded database has no pooler)');
    return raw;
  }, undefined);
  const databaseListenUrl = read(() => {
    const raw = nonEmpty(env, 'DATABASE_LISTEN_URL');
    if (raw === undefined) return undefined;
    if (nonEmpty(env, 'DATABASE_URL') === undefined) throw new Problem('DATABASE_LISTEN_URL needs DATABASE_URL (the embedded database has no pooler)');
    return parseUrl('DATABASE_LISTEN_URL', raw, postgres);
  }, undefined);
  const databaseReadUrl = read(() => {
    const raw = nonEmpty(env, 'DATABASE_READ_URL');
    if (raw === undefined) return undefined;
    // A DATABASE_URL refused above is named once, not again here.
    if (nonEmpty(env, 'DATABASE_URL') === undefined) throw new Problem('DATABASE_READ_URL needs DATABASE_URL (the embedded database has no replica)');
    return parseUrl('DATABASE_READ_URL', raw, postgres);
  }, undefined);
  return { databaseUrl, databasePooler, databaseListenUrl, databaseReadUrl };
}

/** E-mail (SMTP_URL, MAIL_FROM), SMS (SMS_GATEWAY_URL, SMS_GATEWAY_KEY, SMS_SENDER) and MERCHANT_COUNTRY (docs/messaging.md). */
function readMessaging({ env, read }: Reader, mode: Config['env'] | undefined) {
  const smtpUrl = read(() => {
    const raw = nonEmpty(env, 'SMTP_URL');
    return raw === undefined ? undefined : parseUrl('SMTP_URL', raw, ['smtp:', 'smtps:']);
  }, undefined);
  const mailFrom = read(() => {
    const raw = nonEmpty(env, 'MAIL_FROM') ?? DEFAULT_MAIL_FROM;
    if (!isMailFrom(raw)) throw new Problem(`MAIL_FROM must be an e-mail address or "Name <address>", got "${raw}"`);
    return raw;
  }, DEFAULT_MAIL_FROM);
  const smsGatewayUrl = read(() => {
    const raw = nonEmpty(env, 'SMS_GATEWAY_URL');
    if (raw === undefined) return undefined;
    const url = parseUrl('SMS_GATEWAY_URL', raw, ['http:', 'https:']);
    // The gateway key travels in the Authorization header: never in clear over the internet.
    if (mode === 'production' && !url.startsWith('https:')) throw new Problem('SMS_GATEWAY_URL must be an https:// URL when CHIPIN_ENV=production');
    return url;
  }, undefined);
  const smsGatewayKey = read(() => {
    const raw = nonEmpty(env, 'SMS_GATEWAY_KEY');
    if (raw === undefined) return undefined;
    if (nonEmpty(env, 'SMS_GATEWAY_URL') === undefined) throw new Problem('SMS_GATEWAY_KEY is set but SMS_GATEWAY_URL is not');
    if (/[\s]/.test(raw)) throw new Problem('SMS_GATEWAY_KEY must not contain spaces or line breaks');
    return new Redacted(raw);
  }, undefined);
  const smsSender = read(() => {
    const raw = nonEmpty(env, 'SMS_SENDER') ?? 'Chipin';
    // What SMS networks display: an alphanumeric name of at most 11 characters, or a phone number.
    if (!/^[A-Za-z0-9 ]{1,11}$/.test(raw) && !/^\+?[0-9]{3,15}$/.test(raw)) {
      throw new Problem(`SMS_SENDER must be 1 to 11 letters, digits or spaces, or a phone number, got "${raw}"`);
    }
    return raw;
  }, 'Chipin');
  const merchantCountry = read((): CountryCode => {
    const raw = nonEmpty(env, 'MERCHANT_COUNTRY') ?? DEFAULT_MERCHANT_COUNTRY;
    if (!isPhoneCountry(raw)) throw new Problem(`MERCHANT_COUNTRY must be an ISO 3166 country code in capitals, such as FR or GB, got "${raw}"`);
    return raw;
  }, DEFAULT_MERCHANT_COUNTRY);
  return { smtpUrl, mailFrom, smsGatewayUrl, smsGatewayKey, smsSender, merchantCountry };
}

/** PUBLIC_URL, without a trailing slash; by default the address the service listens on. */
function readPublicUrl({ env, read }: Reader, { host, port, mode }: { host: string; port: number; mode: Config['env'] | undefined }): string {
  return read(() => {
    const raw = nonEmpty(env, 'PUBLIC_URL');
    const publicHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
    const url = (raw === undefined ? `http://${publicHost}:${port}` : parseUrl('PUBLIC_URL', raw, ['http:', 'https:'])).replace(/\/+$/, '');
    if (mode === 'production' && !url.startsWith('https:')) throw new Problem('PUBLIC_URL must be an https:// URL when CHIPIN_ENV=production');
    return url;
  }, '');
}

function intInRange({ env, read }: Reader, name: string, fallback: number, min: number, max: number): number {
  return read(() => {
    const raw = nonEmpty(env, name);
    if (raw === undefined) return fallback;
    if (!/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new Problem(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
    }
    return Number(raw);
  }, fallback);
}

/** The intervals and limits: job polling, the shutdown drain, the replica's lag, the simulation's rate, risk decisions' retention. */
function readTimings(r: Reader, mode: Config['env'] | undefined) {
  const jobPollIntervalMs = intInRange(r, 'JOB_POLL_INTERVAL_MS', 1_000, 0, 60_000);
  const shutdownDrainMs = intInRange(r, 'SHUTDOWN_DRAIN_MS', mode === 'production' ? 5_000 : 0, 0, 120_000);
  // Polling faster than this only loads the database; 0 turns polling off.
  if (jobPollIntervalMs > 0 && jobPollIntervalMs < 100) r.problems.push(`JOB_POLL_INTERVAL_MS must be 0 or at least 100, got "${jobPollIntervalMs}"`);
  // Below 100 ms the bound is finer than the check's own period (docs/deployment.md#read-replicas).
  const databaseReadMaxLagMs = intInRange(r, 'DATABASE_READ_MAX_LAG_MS', 5_000, 100, 3_600_000);
  const simulationRateLimit = intInRange(r, 'SIMULATION_RATE_LIMIT', 60, 1, 1_000_000);
  const riskDecisionRetentionDays = intInRange(r, 'RISK_DECISION_RETENTION_DAYS', DEFAULT_RISK_DECISION_RETENTION_DAYS, 1, 36_500);
  return { jobPollIntervalMs, shutdownDrainMs, databaseReadMaxLagMs, simulationRateLimit, riskDecisionRetentionDays };
}

/** A comma-separated list of host names or IP addresses, lower-cased (WEBHOOK_ALLOWED_HOSTS, PSP_ENDPOINT_ALLOWLIST). */
function hostList({ env, read }: Reader, name: string): string[] {
  return read(() => {
    const hosts = (nonEmpty(env, name) ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean);
    const bad = hosts.find((h) => !/^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[?[0-9a-f:.]+\]?)$/.test(h));
    if (bad !== undefined) throw new Problem(`${name} must be a comma-separated list of host names or IP addresses, got "${bad}"`);
    return hosts;
  }, [] as string[]);
}

/** The money settings: CREDIT_LENDER, the operator's debtor account (OPERATOR_NAME, OPERATOR_IBAN, OPERATOR_BIC), PAYOUT_PAIN_FORMAT and PAYOUT_BANK_DETAILS_HOLD_HOURS. */
function readMoney(r: Reader) {
  const { env, read } = r;
  const creditLender = read(() => {
    const raw = nonEmpty(env, 'CREDIT_LENDER');
    // Shown on one line of the pages and e-mails, as an offer's own lender is (at most 300 characters).
    if (raw !== undefined && (raw.length > 300 || /[\r\n]/.test(raw))) throw new Problem('CREDIT_LENDER must be one line of at most 300 characters');
    return raw;
  }, undefined);
  // The operator's debtor account: the same checks as a merchant's bank details, named by variable.
  const operatorDebtor = read((): BankDetails | undefined => {
    const names = { holder_name: 'OPERATOR_NAME', iban: 'OPERATOR_IBAN', bic: 'OPERATOR_BIC' } as const;
    const given = { holder_name: nonEmpty(env, names.holder_name), iban: nonEmpty(env, names.iban), bic: nonEmpty(env, names.bic) };
    const set = Object.values(given).filter((v) => v !== undefined).length;
    if (set === 0) return undefined;
    if (set < 3) throw new Problem('OPERATOR_NAME, OPERATOR_IBAN and OPERATOR_BIC go together (the account payouts are paid from): set all three or none');
    const checked = checkBankDetails(given);
    if (!checked.ok) throw new Problem(`${names[checked.field]} ${checked.message.replace(/^field \S+ /, '')}`);
    return checked.details;
  }, undefined);
  const payoutPainFormat = read((): PainFormat => {
    const raw = nonEmpty(env, 'PAYOUT_PAIN_FORMAT') ?? DEFAULT_PAIN_FORMAT;
    if (!(PAIN_FORMATS as readonly string[]).includes(raw)) throw new Problem(`PAYOUT_PAIN_FORMAT must be one of ${PAIN_FORMATS.join(', ')}, got "${raw}"`);
    return raw as PainFormat;
  }, DEFAULT_PAIN_FORMAT);
  const payoutBankDetailsHoldHours = intInRange(r, 'PAYOUT_BANK_DETAILS_HOLD_HOURS', DEFAULT_PAYOUT_BANK_DETAILS_HOLD_HOURS, 0, 24 * 90);
  return { creditLender, operatorDebtor, payoutPainFormat, payoutBankDetailsHoldHours };
}

function readTrustProxy({ env, read }: Reader): Config['trustProxy'] {
  return read((): Config['trustProxy'] => {
    const raw = nonEmpty(env, 'TRUST_PROXY');
    if (raw === undefined || raw === 'false') return false;
    if (raw === 'true') return true;
    // Fastify trusts no proxy for a hop count (it cannot check who sent the header), so every
    // client would get the proxy's address and share its throttles: refused rather than ignored.
    if (/^\d+$/.test(raw)) throw new Problem(`TRUST_PROXY must be true, false or the proxies' addresses (comma-separated addresses or CIDR ranges), not a hop count: got "${raw}"`);
    return raw;
  }, false);
}

/** The metrics listener and token (docs/deployment.md#metrics-and-alerts): METRICS_PORT, METRICS_HOST, METRICS_TOKEN. */
function readMetrics({ env, read }: Reader, port: number) {
  const metricsPort = read(() => {
    const raw = nonEmpty(env, 'METRICS_PORT');
    if (raw === undefined) return undefined;
    const metrics = portNumber('METRICS_PORT', raw);
    if (metrics === port) throw new Problem(`METRICS_PORT must differ from PORT (${port}): it is a listener of its own`);
    return metrics;
  }, undefined);
  const metricsHost = read(() => {
    const raw = nonEmpty(env, 'METRICS_HOST');
    if (raw === undefined) return '127.0.0.1';
    if (nonEmpty(env, 'METRICS_PORT') === undefined) throw new Problem('METRICS_HOST is set but METRICS_PORT is not (the metrics listener needs a port)');
    if (isIP(raw) === 0 && !/^(?:[A-Za-z0-9-]+)(?:\.[A-Za-z0-9-]+)*$/.test(raw)) throw new Problem(`METRICS_HOST must be an IP address or a host name, got "${raw}"`);
    return raw;
  }, '127.0.0.1');
  const metricsToken = read(() => {
    const raw = nonEmpty(env, 'METRICS_TOKEN');
    if (raw === undefined) return undefined;
    // Never the value in a message: it is a secret.
    if (raw.length < METRICS_TOKEN_MIN_LENGTH)
      throw new Problem(`METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN_LENGTH} characters (e.g. "openssl rand -hex 32"), got ${raw.length}`);
    // RFC 6750's b64token: what a Bearer header can carry as is.
    if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(raw)) throw new Problem('METRICS_TOKEN must be letters, digits and -._~+/ (then = signs), as a Bearer token is sent');
    return new Redacted(raw);
  }, undefined);
  return {
    ...(metricsPort === undefined ? {} : { metricsListener: { port: metricsPort, host: metricsHost } }),
    ...(metricsToken === undefined ? {} : { metricsToken }),
  };
}

/** Reads and validates the environment. Throws {@link ConfigError} naming every bad variable. */
export function loadConfig(env: Env): Config {
  const problems: string[] = [];
  const r: Reader = {
    env,
    problems,
    read(fn, fallback) {
      try {
        return fn();
      } catch (err) {
        if (!(err instanceof Problem)) throw err;
        problems.push(err.message);
        return fallback;
      }
    },
  };
  // In this order, which is the order the problems are named in.
  const { port, host, mode, logLevel } = readServer(r);
  const { databaseUrl, databasePooler, databaseListenUrl, databaseReadUrl } = readDatabase(r);
  const messaging = readMessaging(r, mode);
  const publicUrl = readPublicUrl(r, { host, port, mode });
  const dataDir = resolve(nonEmpty(env, 'DATA_DIR') ?? './data');
  const { databaseReadMaxLagMs, ...timings } = readTimings(r, mode);
  const webhookAllowedHosts = hostList(r, 'WEBHOOK_ALLOWED_HOSTS');
  const pspEndpointAllowlist = hostList(r, 'PSP_ENDPOINT_ALLOWLIST');
  const { creditLender, operatorDebtor, payoutPainFormat, payoutBankDetailsHoldHours } = readMoney(r);
  const trustProxy = readTrustProxy(r);
  const metrics = readMetrics(r, port);

  // Last, so that a configuration refused for another reason never creates the key file.
  const masterKey = r.read(() => loadMasterKey(env, mode, dataDir, problems.length === 0), Buffer.alloc(0));
  if (problems.length > 0 || mode === undefined) throw new ConfigError(problems);
  return {
    port,
    host,
    publicUrl,
    databaseUrl,
    ...(databasePooler === undefined ? {} : { databasePooler }),
    ...(databaseListenUrl === undefined ? {} : { databaseListenUrl }),
    ...(databaseReadUrl === undefined ? {} : { databaseReadUrl, databaseReadMaxLagMs }),
    dataDir,
    env: mode,
    masterKey,
    masterKeySource: nonEmpty(env, 'MASTER_KEY') ? 'the MASTER_KEY environment variable' : `the file ${join(dataDir, 'master.key')} (MASTER_KEY unset)`,
    ...messaging,
    logLevel,
    trustProxy,
    ...timings,
    webhookAllowedHosts,
    pspEndpointAllowlist,
    ...(creditLender === undefined ? {} : { creditLender }),
    ...(operatorDebtor === undefined ? {} : { operatorDebtor }),
    payoutPainFormat,
    payoutBankDetailsHoldHours,
    ...metrics,
  };
}
