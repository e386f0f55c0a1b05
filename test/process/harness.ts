/**
 * Runs the real CLI as child processes for the process-level tests: `node dist/….mjs ...`, the
 * bundle production runs, built once for the run (test/setup/cli-children.ts), or where a test
 * says so `node --import tsx src/main.ts ...` as `npm start` runs it; one Node process either way
 * (docs/testing.md, "Process tests"). Every child gets its own process group, a hard timeout, and
 * is killed (SIGKILL to its group) by {@link killAll}.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, inject } from 'vitest';
import { OVERLAP_WARNING } from '../../src/db/statement-turns.ts';
import { testConnection } from '../helpers/postgres-url.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The suite runs on PGlite by default and on PostgreSQL when DATABASE_URL is set. */
export const onPostgres = !!process.env.DATABASE_URL?.trim();

/** Every variable src/config.ts reads: none may leak in from the developer's shell. */
const CONFIG_VARS = [
  'PORT',
  'HOST',
  'PUBLIC_URL',
  'DATABASE_URL',
  'DATA_DIR',
  'CHIPIN_ENV',
  'MASTER_KEY',
  'SMTP_URL',
  'LOG_LEVEL',
  'TRUST_PROXY',
  'OPERATOR_NAME',
  'OPERATOR_IBAN',
  'OPERATOR_BIC',
  'PAYOUT_PAIN_FORMAT',
  'METRICS_PORT',
  'METRICS_HOST',
  'METRICS_TOKEN',
  'SHUTDOWN_DRAIN_MS',
];

const tempDirs: string[] = [];

/**
 * The master key of every child on PostgreSQL, where they all share DATABASE_URL's database
 * from run to run: that database keeps the check value of the first key it saw (docs/security.md,
 * "The master key"), so the key never changes. On PGlite each DATA_DIR has its own database and key.
 */
const POSTGRES_MASTER_KEY = 'c4'.repeat(32);

/**
 * A new DATA_DIR, removed by {@link cleanUp}. Unless `empty`: on PostgreSQL it holds the suite's
 * master.key; on PGlite a copy of the run's migrated embedded database (test/setup/cli-children.ts,
 * ~40 MB), so the child skips initdb and the migrations. `empty` for a test of a first start.
 */
export function tempDataDir(options: { empty?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'chipin-proc-'));
  tempDirs.push(dir);
  if (!options.empty) withMigratedDatabase(dir);
  return dir;
}

/** Gives `dataDir` what {@link tempDataDir} gives a DATA_DIR that is not `empty`. */
export function withMigratedDatabase(dataDir: string): void {
  if (onPostgres) writeFileSync(join(dataDir, 'master.key'), POSTGRES_MASTER_KEY + '\n', { mode: 0o600 });
  else cpSync(inject('pgliteDataDir'), dataDir, { recursive: true });
}

export function uniqueEmail(tag = 'proc'): string {
  return `${tag}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}@shop.test`;
}

export function basic(user: string, password: string): string {
  return 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
}

/**
 * The environment of a child: this process's, minus any Chipin setting, plus DATA_DIR, loopback
 * HOST and the test database when the suite runs on PostgreSQL. `undefined` in `extra` unsets.
 */
export function cliEnv(dataDir: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARS) delete env[name];
  Object.assign(env, { DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'debug' }); // debug: access lines of successful requests too
  if (onPostgres) {
    const base = process.env.DATABASE_URL!;
    Object.assign(env, testConnection(base, new URL(base).pathname.slice(1)).env);
  }
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class Proc {
  stdout = '';
  stderr = '';
  exitInfo: Exit | undefined;
  timedOut = false;
  readonly exited: Promise<Exit>;
  readonly #timer: NodeJS.Timeout;
  #listeners = new Set<() => void>();

  constructor(
    readonly child: ChildProcess,
    readonly args: string[],
    timeoutMs: number,
  ) {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.stdout += d;
      this.#notify();
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.stderr += d;
      this.#notify();
    });
    this.exited = new Promise((resolve) => {
      // 'close': the exit code, and every byte of output read.
      child.on('close', (code, signal) => {
        clearTimeout(this.#timer);
        this.exitInfo = { code, signal };
        running.delete(this);
        const overlap = OVERLAP_MARKS.find((mark) => this.stderr.includes(mark));
        if (overlap) overlapping.push(`chipin ${args.join(' ')}: ${this.stderr.slice(Math.max(0, this.stderr.indexOf(overlap) - 200), this.stderr.indexOf(overlap) + 1500)}`);
        this.#notify();
        resolve(this.exitInfo);
      });
    });
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.kill();
    }, timeoutMs);
    running.add(this);
  }

  #notify(): void {
    for (const l of this.#listeners) l();
  }

  /** SIGKILL to the whole process group: the Node process running src/main.ts and anything it started. */
  kill(): void {
    if (this.exitInfo || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }

  /**
   * Sends a signal to the Node process running the CLI, as an orchestrator does: the child itself
   * (never through a wrapper such as the `tsx` binary, whose relay SIGKILLs its child when the
   * child has not acknowledged a signal within ~30 ms under CPU load).
   */
  signal(sig: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    process.kill(pid, sig);
  }

  get output(): string {
    return this.stdout + this.stderr;
  }

  /** Parsed JSON log lines on stdout (the demo banner and other plain text are skipped). */
  logLines(): Record<string, unknown>[] {
    return jsonLines(this.stdout);
  }

  /** Resolves once `test` holds on the output; rejects when the process exits first or after `timeoutMs`. */
  waitFor(test: (p: Proc) => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (test(this)) done(resolve);
        else if (this.exitInfo) done(() => reject(new Error(`process exited (${JSON.stringify(this.exitInfo)}) before ${what}\n${this.output}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${this.output}`))), timeoutMs);
      const done = (fn: () => void) => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        fn();
      };
      this.#listeners.add(check);
      check();
    });
  }

  /** The exit, or a rejection naming the process when it takes longer than `timeoutMs`. */
  async exitWithin(timeoutMs: number): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`chipin ${this.args.join(' ')} did not exit within ${timeoutMs} ms\n${this.output}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const running = new Set<Proc>();

/**
 * How long one child may take before it is taken for hung and killed. Not a timing assertion: a
 * first start on a fresh embedded database (initdb and every migration) is about 10 s alone, and
 * more than ten times that on the 2-core CI machine while the full suite loads both cores
 * (docs/testing.md, "Process tests").
 */
export const CHILD_MS = 240_000;

/** The timeout of a test that runs several children one after the other. */
export const PROCESS_TEST_MS = 420_000;

/**
 * Starts `chipin <args>` with cwd at the project root; killed after `timeoutMs` whatever happens.
 * From the bundle `npm run build` wrote for this run (test/setup/cli-children.ts), as production
 * runs it (docs/deployment.md#the-bundle), or from the sources through tsx, as `npm start` does.
 */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = CHILD_MS, from: 'sources' | 'bundle' = 'bundle'): Proc {
  const entry = from === 'bundle' ? ['--enable-source-maps', inject('cliBundle')] : ['--import', 'tsx', 'src/main.ts'];
  const child = spawn(process.execPath, [...entry, ...args], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Proc(child, args, timeoutMs);
}

export interface Result extends Exit {
  stdout: string;
  stderr: string;
}

/** Runs one CLI command to completion. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = CHILD_MS): Promise<Result> {
  const p = spawnCli(args, env, timeoutMs);
  const exit = await p.exited;
  if (p.timedOut) throw new Error(`chipin ${args.join(' ')} timed out after ${timeoutMs} ms\n${p.output}`);
  return { ...exit, stdout: p.stdout, stderr: p.stderr };
}

/** Kills every child still running (afterEach / afterAll) and waits until they are gone. */
export async function killAll(): Promise<void> {
  const procs = [...running];
  for (const p of procs) p.kill();
  await Promise.all(procs.map((p) => p.exited));
}

/**
 * What a child prints when two queries ran at once on one of its connections: node-postgres's
 * deprecation, and the warning of a transaction whose statements had to wait their turn
 * (src/db/statement-turns.ts). {@link cleanUp} fails the file on either
 * (docs/testing.md#one-statement-at-a-time).
 */
const OVERLAP_MARKS = ['already executing a query', OVERLAP_WARNING];
const overlapping: string[] = [];

/** afterAll: kills what still runs, then removes every DATA_DIR this file created; fails when a child ran two queries at once on a connection. */
export async function cleanUp(): Promise<void> {
  await killAll();
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  const seen = overlapping.splice(0);
  if (seen.length > 0) throw new Error(`a child process ran two queries at once on one connection (docs/testing.md#one-statement-at-a-time):\n${seen.join('\n---\n')}`);
}

/** A port free on loopback right now: listen on 0, read it, close. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface Served {
  proc: Proc;
  port: number;
  url: string;
}

/**
 * `chipin serve` on a free loopback port, resolved once GET /readyz answers 200 (within
 * {@link CHILD_MS}); the server is killed after `timeoutMs` if the test has not stopped it.
 */
export async function startServe(
  dataDir: string,
  extra: Record<string, string | undefined> = {},
  timeoutMs = PROCESS_TEST_MS,
  from: 'sources' | 'bundle' = 'bundle',
): Promise<Served> {
  // A port free a moment ago may be taken meanwhile by another file's server (files run at once):
  // the child then exits with EADDRINUSE before it listens, and another port is tried, 3 at most.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServeOn(await freePort(), dataDir, extra, timeoutMs, from);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof Error && err.message.includes('EADDRINUSE'))) throw err;
    }
  }
}

async function startServeOn(port: number, dataDir: string, extra: Record<string, string | undefined>, timeoutMs: number, from: 'sources' | 'bundle'): Promise<Served> {
  const proc = spawnCli(['serve'], cliEnv(dataDir, { PORT: String(port), ...extra }), timeoutMs, from);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + CHILD_MS;
  for (;;) {
    if (proc.exitInfo) throw new Error(`chipin serve exited ${JSON.stringify(proc.exitInfo)} before it was ready\n${proc.output}`);
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return { proc, port, url };
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      proc.kill();
      throw new Error(`chipin serve was not ready within ${CHILD_MS / 1000} s\n${proc.output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** SIGTERM, then the exit (rejects when it takes longer than `timeoutMs`). */
export async function stopServe(s: Served, timeoutMs = 10_000): Promise<Exit> {
  s.proc.signal('SIGTERM');
  return s.proc.exitWithin(timeoutMs);
}

export interface CreatedMerchant {
  account_id: string;
  email: string;
  time_zone: string;
  password: string;
  api_key: string;
  api_secret: string;
  offers: { merchant_uid: string; type: string; installments: number; deferred_days: number; secret: string }[];
}

/** `chipin merchant create --json` for a fresh e-mail; throws with the output when it fails. */
export async function createMerchant(dataDir: string, email = uniqueEmail()): Promise<CreatedMerchant> {
  const r = await runCli(['merchant', 'create', '--name', 'Process Test Shop', '--email', email, '--json'], cliEnv(dataDir));
  if (r.code !== 0) throw new Error(`merchant create failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as CreatedMerchant;
}

/** Exactly what `merchant create --json` and DATA_DIR/demo-merchant.json promise. */
export function expectCreatedMerchant(m: unknown, email?: string): asserts m is CreatedMerchant {
  expect(m).toEqual({
    account_id: expect.stringMatching(/^acc_[0-9a-f-]{36}$/),
    email: email ?? expect.any(String),
    time_zone: 'Europe/Paris',
    password: expect.any(String),
    api_key: expect.stringMatching(/^key_[0-9a-f-]{36}$/),
    api_secret: expect.any(String),
    offers: [
      {
        merchant_uid: expect.stringMatching(/^mer_[0-9a-f-]{36}$/),
        type: 'SHARED',
        installments: 1,
        deferred_days: 0,
        deposit_percent: null,
        max_balance_delay_days: null,
        secret: expect.any(String),
      },
      {
        merchant_uid: expect.stringMatching(/^mer_[0-9a-f-]{36}$/),
        type: 'INSTALLMENTS',
        installments: 3,
        deferred_days: 0,
        deposit_percent: null,
        max_balance_delay_days: null,
        secret: expect.any(String),
      },
      {
        merchant_uid: expect.stringMatching(/^mer_[0-9a-f-]{36}$/),
        type: 'INSTALLMENTS',
        installments: 4,
        deferred_days: 0,
        deposit_percent: null,
        max_balance_delay_days: null,
        secret: expect.any(String),
      },
      {
        merchant_uid: expect.stringMatching(/^mer_[0-9a-f-]{36}$/),
        type: 'DEFERRED',
        installments: 1,
        deferred_days: 30,
        deposit_percent: null,
        max_balance_delay_days: null,
        secret: expect.any(String),
      },
      {
        merchant_uid: expect.stringMatching(/^mer_[0-9a-f-]{36}$/),
        type: 'DOWN_PAYMENT',
        installments: 2,
        deferred_days: 0,
        deposit_percent: 30,
        max_balance_delay_days: 60,
        secret: expect.any(String),
      },
    ],
  });
  const c = m as CreatedMerchant;
  expect(c.password.length).toBeGreaterThanOrEqual(12);
  expect(c.api_secret.length).toBeGreaterThanOrEqual(32);
  expect(new Set(c.offers.map((o) => o.merchant_uid)).size).toBe(5);
  expect(new Set(c.offers.map((o) => o.secret)).size).toBe(5);
}

/** POST /api/token as the contract shows it: Basic API key and secret, form body. */
export function tokenRequest(url: string, apiKey: string, apiSecret: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/api/token`, {
    method: 'POST',
    headers: { authorization: basic(apiKey, apiSecret), 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(10_000),
  });
}

/** A token for these credentials, asserting the 200 answer's shape. */
export async function getToken(url: string, apiKey: string, apiSecret: string): Promise<string> {
  const res = await tokenRequest(url, apiKey, apiSecret);
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 600 });
  return body.access_token as string;
}

export async function whoami(url: string, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/api/whoami`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
