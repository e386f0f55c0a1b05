/**
 * The planned-maintenance drills (npm run drill:switchover and npm run drill:rolling, through
 * deploy/topology/switchover.sh and rolling-restart.sh): with the topology of deploy/topology/up.sh
 * running, the failover drill's kind of load (6 clients creating purchases through the Merchant
 * API with an Idempotency-Key, paying every other one with the sandbox card, refunding every fourth
 * paid one), and in the middle the maintenance: DRILL_ACTION, a shell command run to its end.
 * PASS means no failed request (no answer other than 2xx: no 5xx, no connection error, no
 * timeout) and every acknowledged purchase, payment and refund on the primary afterwards, no card
 * charged twice. docs/deployment.md#planned-switchover-and-rolling-restart.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

const dir = process.env.CHIPIN_TOPOLOGY_DIR ?? '/tmp/chipin-topology';
const action = process.env.DRILL_ACTION;
const name = process.env.DRILL_NAME ?? 'planned';
const BASE = 'http://127.0.0.1:7000';
const PRIMARY_URL = 'postgres://postgres@127.0.0.1:5000/chipin';
const WORKERS = 6;
const WARM_UP_MS = 4_000;
/** After the maintenance ends, the load goes on this long. */
const AFTER_MS = 5_000;
/** The maintenance command is given this long (then killed: FAIL). */
const ACTION_TIMEOUT_MS = 180_000;
const REQUEST_TIMEOUT_MS = 15_000;
const REFUND_CENTS = 300;

const merchant = JSON.parse(readFileSync(join(dir, 'merchant.json'), 'utf8')) as { api_key: string; api_secret: string };
const t0 = performance.now();
const now = (): number => performance.now() - t0;
const seconds = (ms: number): string => (ms / 1000).toFixed(2) + ' s';

let token = '';
async function refreshToken(): Promise<void> {
  const res = await fetch(`${BASE}/api/token`, {
    method: 'POST',
    headers: { authorization: 'Basic ' + Buffer.from(`${merchant.api_key}:${merchant.api_secret}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status}`);
  token = ((await res.json()) as { access_token: string }).access_token;
}

async function post(path: string, body: unknown, idempotencyKey?: string): Promise<{ status: number; body: unknown }> {
  try {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const res = await fetch(BASE + path, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
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
      const res = await timed(() => post('/api/merchants/v1/purchases', { title: `Planned ${w}-${n}`, amount: 1000 + n, client: { email: `planned-${w}-${n}@shop.test` } }, key));
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
      const res = await timed(() => post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242 4242 4242 4242' }));
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
      const res = await timed(() => post(`/api/merchants/v1/purchases/pur_${id}/refunds`, { amount: REFUND_CENTS, reason: 'drill' }, refundKey));
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

async function main(): Promise<void> {
  if (!action) throw new Error('DRILL_ACTION: the maintenance command to run under load');
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

  const db = new pg.Client({ connectionString: PRIMARY_URL, connectionTimeoutMillis: 10_000, statement_timeout: 30_000 });
  await db.connect();
  const ids = [...acknowledgedCreates];
  const found = await db.query('SELECT id FROM purchases WHERE id = ANY($1::uuid[])', [ids]);
  const missing = ids.length - found.rowCount!;
  const paid = await db.query("SELECT DISTINCT purchase_id FROM payments WHERE purchase_id = ANY($1::uuid[]) AND status IN ('authorized', 'captured', 'refunded')", [
    [...acknowledgedPays],
  ]);
  const paidMissing = acknowledgedPays.size - paid.rowCount!;
  const refunds = await db.query("SELECT id FROM refunds WHERE id = ANY($1::uuid[]) AND state = 'succeeded'", [[...acknowledgedRefunds.keys()]]);
  const refundsMissing = acknowledgedRefunds.size - refunds.rowCount!;
  const doubled = await db.query(
    `SELECT purchase_id, purpose, pledge_id FROM payments WHERE status IN ('authorized', 'captured', 'refunded')
      GROUP BY 1, 2, 3 HAVING count(*) > 1`,
  );
  await db.end();

  const failed = [...failures.values()].reduce((a, b) => a + b, 0);
  console.log(`maintenance: ${seconds(actionEnd - actionStart)} (exit ${actionStatus}); slowest answer: ${seconds(slowest)}`);
  console.log(`requests: ${requests}; failed: ${failed}${failed ? ` (${[...failures].map(([k, v]) => `${k} x${v}`).join(', ')})` : ''}`);
  console.log(`acknowledged purchases: ${acknowledgedCreates.size} (${createdBefore} before the maintenance); missing on the primary: ${missing}`);
  console.log(
    `acknowledged payments: ${acknowledgedPays.size}; without a live payment: ${paidMissing}; acknowledged refunds: ${acknowledgedRefunds.size}; missing: ${refundsMissing}`,
  );
  console.log(`purposes paid twice: ${doubled.rowCount}`);
  const pass = actionStatus === 0 && failed === 0 && missing === 0 && paidMissing === 0 && refundsMissing === 0 && doubled.rowCount === 0;
  console.log(pass ? 'PASS' : 'FAIL');
  process.exitCode = pass ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2);
});
