/**
 * The planned-maintenance drills (npm run drill:switchover, drill:rolling, drill:upgrade-topology,
 * drill:lb-pair, through deploy/topology/switchover.sh, rolling-restart.sh, upgrade-topology.sh and
 * lb-pair.sh): with the topology of deploy/topology/up.sh running, the failover drill's kind of load
 * (6 clients creating purchases through the Merchant API with an Idempotency-Key, paying every other
 * one with the sandbox card, refunding every fourth paid one), and in the middle the maintenance:
 * DRILL_ACTION, a shell command run to its end. The clients reach Chipin through either HAProxy
 * (127.0.0.1:7000 and 127.0.0.2:7000, docs/deployment.md#two-of-each-in-front), each preferring one,
 * as a client given two addresses does: a connection refused is sent again at once to the other
 * address (it reached nothing) and counted apart; any other failure is a failed request.
 * A failed request is an answer 5xx or none (a connection cut, a timeout); a 409 is a working
 * service's answer to a retry whose key or purchase is still busy with the failed attempt (the
 * client retries it). PASS means at most DRILL_MAX_FAILED failed requests (default 0) and at most
 * DRILL_MAX_409 answers 409 (default 0; unbounded when empty), no answer 500, and the money checks (deploy/topology/money-checks.ts):
 * every acknowledged purchase, payment and refund on the primary afterwards, nothing charged,
 * refunded, run or written twice. docs/deployment.md#planned-switchover-and-rolling-restart.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { moneyChecks } from './money-checks.ts';

const dir = process.env.CHIPIN_TOPOLOGY_DIR ?? '/tmp/chipin-topology';
const action = process.env.DRILL_ACTION;
const name = process.env.DRILL_NAME ?? 'planned';
const maxFailed = Number(process.env.DRILL_MAX_FAILED ?? 0);
const max409 = process.env.DRILL_MAX_409 === '' ? Infinity : Number(process.env.DRILL_MAX_409 ?? 0);
/** The two HAProxies' Chipin ports (two machines' addresses). */
const BASES = ['http://127.0.0.1:7000', 'http://127.0.0.2:7000'];
/** The primary through either HAProxy, for the checks. */
const PRIMARY_URLS = ['postgres://postgres@127.0.0.1:5000/chipin', 'postgres://postgres@127.0.0.2:5000/chipin'];
const WORKERS = 6;
const WARM_UP_MS = 4_000;
/** After the maintenance ends, the load goes on this long. */
const AFTER_MS = 5_000;
/** The maintenance command is given this long (then killed: FAIL). */
const ACTION_TIMEOUT_MS = Number(process.env.DRILL_ACTION_TIMEOUT_MS ?? 180_000);
const REQUEST_TIMEOUT_MS = 15_000;
const REFUND_CENTS = 300;
/** An address whose connection was refused is passed over this long. */
const DOWN_MS = 5_000;

const merchant = JSON.parse(readFileSync(join(dir, 'merchant.json'), 'utf8')) as { api_key: string; api_secret: string };
const t0 = performance.now();
const now = (): number => performance.now() - t0;
const seconds = (ms: number): string => (ms / 1000).toFixed(2) + ' s';

/** When each address was last refused, and how many requests were sent again to the other one. */
const refusedAt = BASES.map(() => -Infinity);
let resent = 0;
/** The address a client sends to: its own, unless refused in the last DOWN_MS. */
function baseFor(w: number): number {
  const own = w % BASES.length;
  return now() - refusedAt[own]! < DOWN_MS ? (own + 1) % BASES.length : own;
}
const refused = (err: unknown): boolean => (err as { cause?: { code?: string } })?.cause?.code === 'ECONNREFUSED';

let token = '';
async function refreshToken(): Promise<void> {
  const res = await fetch(`${BASES[baseFor(0)]}/api/token`, {
    method: 'POST',
    headers: { authorization: 'Basic ' + Buffer.from(`${merchant.api_key}:${merchant.api_secret}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status}`);
  token = ((await res.json()) as { access_token: string }).access_token;
}

async function post(w: number, path: string, body: unknown, idempotencyKey?: string): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const send = (base: number) => fetch(BASES[base] + path, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  try {
    const base = baseFor(w);
    const res = await send(base).catch((err: unknown) => {
      if (!refused(err)) throw err;
      // Refused: nothing was sent; the other address at once.
      refusedAt[base] = now();
      resent++;
      return send((base + 1) % BASES.length);
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* kept as text */
    }
    return { status: res.status, body: parsed };
  } catch {
    return { status: 0, body: undefined };
  }
}

const acknowledgedCreates = new Set<string>();
const acknowledgedPays = new Set<string>();
const acknowledgedRefunds = new Map<string, string>(); // refund id -> purchase id
const failures = new Map<string, number>(); // "pay 503" -> count
let requests = 0;
let actionStart: number | undefined;
let actionEnd: number | undefined;
let slowest = 0;
let stopAt = Infinity;

function noteFailure(kind: string, status: number, body: unknown): void {
  const key = `${kind} ${status || 'no answer'}`;
  if (!failures.has(key)) console.log(`first ${key} at ${seconds(now())}: ${JSON.stringify(body)?.slice(0, 200)}`);
  failures.set(key, (failures.get(key) ?? 0) + 1);
}

async function timed<T>(f: () => Promise<T>): Promise<T> {
  const start = now();
  requests++;
  const result = await f();
  slowest = Math.max(slowest, now() - start);
  return result;
}

/** One client, as in the failover drill: a failure is retried (and counted). */
async function worker(w: number): Promise<void> {
  for (let n = 0; now() < stopAt; n++) {
    const key = randomUUID();
    let id: string | undefined;
    while (id === undefined && now() < stopAt) {
      const res = await timed(() =>
        post(w, '/api/merchants/v1/purchases', { title: `Planned ${w}-${n}`, amount: 1000 + n, client: { email: `planned-${w}-${n}@shop.test` } }, key),
      );
      if (res.status === 201 || res.status === 200) {
        id = (res.body as { id: string }).id;
        acknowledgedCreates.add(id);
      } else {
        if (res.status === 401) await refreshToken().catch(() => {});
        noteFailure('create', res.status, res.body);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    if (id === undefined || n % 2 === 1) continue;
    while (now() < stopAt) {
      const res = await timed(() => post(w, `/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242 4242 4242 4242' }));
      if (res.status === 200) {
        acknowledgedPays.add(id);
        break;
      }
      noteFailure('pay', res.status, res.body);
      if (res.status === 409) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!acknowledgedPays.has(id) || n % 4 !== 0) continue;
    const refundKey = randomUUID();
    while (now() < stopAt) {
      const res = await timed(() => post(w, `/api/merchants/v1/purchases/pur_${id}/refunds`, { amount: REFUND_CENTS, reason: 'drill' }, refundKey));
      if (res.status === 201 || res.status === 200) {
        acknowledgedRefunds.set((res.body as { id: string }).id.replace(/^ref_/, ''), id);
        break;
      }
      noteFailure('refund', res.status, res.body);
      if (res.status === 406) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function runAction(command: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { stdio: 'inherit' });
    const timer = setTimeout(() => child.kill('SIGTERM'), ACTION_TIMEOUT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
}

/** The primary through the first HAProxy that answers. */
async function primary(): Promise<pg.Client> {
  let last: unknown;
  for (const connectionString of PRIMARY_URLS) {
    const db = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000, statement_timeout: 30_000 });
    try {
      await db.connect();
      return db;
    } catch (err) {
      last = err;
    }
  }
  throw last;
}

async function main(): Promise<void> {
  if (!action) throw new Error('DRILL_ACTION: the maintenance command to run under load');
  const since = new Date();
  await refreshToken();
  console.log(`== ${name} drill: ${WORKERS} clients`);
  const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  await new Promise((r) => setTimeout(r, WARM_UP_MS));
  const createdBefore = acknowledgedCreates.size;
  actionStart = now();
  const actionStatus = await runAction(action);
  actionEnd = now();
  stopAt = now() + AFTER_MS;
  await load;

  const db = await primary();
  const money = await moneyChecks(db, { creates: acknowledgedCreates, pays: acknowledgedPays, refunds: acknowledgedRefunds, refundCents: REFUND_CENTS }, since);
  await db.end();

  const failed = [...failures].filter(([k]) => !k.endsWith(' 409')).reduce((sum, [, v]) => sum + v, 0);
  const answers409 = [...failures].filter(([k]) => k.endsWith(' 409')).reduce((sum, [, v]) => sum + v, 0);
  const answers500 = [...failures].filter(([k]) => k.endsWith(' 500')).reduce((sum, [, v]) => sum + v, 0);
  console.log(`maintenance: ${seconds(actionEnd - actionStart)} (exit ${actionStatus}); slowest answer: ${seconds(slowest)}`);
  console.log(
    `requests: ${requests}; failed (5xx or no answer): ${failed}, at most ${maxFailed} allowed; answers 409: ${answers409}${max409 === Infinity ? '' : `, at most ${max409} allowed`}${failures.size ? ` (${[...failures].map(([k, v]) => `${k} x${v}`).join(', ')})` : ''}; answers 500: ${answers500}; refused and sent again to the other HAProxy: ${resent}`,
  );
  console.log(`purchases acknowledged before the maintenance: ${createdBefore}`);
  for (const line of money.lines) console.log(line);
  const pass = actionStatus === 0 && failed <= maxFailed && answers409 <= max409 && answers500 === 0 && money.pass;
  console.log(pass ? 'PASS' : 'FAIL');
  process.exitCode = pass ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2);
});
