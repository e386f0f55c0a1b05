/**
 * The failover drill (npm run drill:failover, through deploy/topology/failover.sh): with the
 * topology of deploy/topology/up.sh running, a bounded load of purchases created through the
 * Merchant API, paid with the sandbox PSP's card and partly refunded, the primary killed with
 * SIGKILL in the middle, then the checks that matter: how long from the kill to the first
 * successful write, every acknowledged purchase and refund on the new primary, no card charged
 * or refunded twice, no job run twice nor ledger row written twice, no answer 500.
 * docs/deployment.md#reference-topology-and-failover.
 *
 * DRILL_KILL=node (default): SIGKILL the leader's Patroni and its postmaster, a machine lost;
 * the standby is promoted once the leader key expires (ttl). DRILL_KILL=postgres: SIGKILL the
 * postmaster only; the leader's Patroni, still holding the key, restarts it in place.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import pg from 'pg';

const dir = process.env.CHIPIN_TOPOLOGY_DIR ?? '/tmp/chipin-topology';
const killMode = process.env.DRILL_KILL === 'postgres' ? 'postgres' : 'node';
const BASE = 'http://127.0.0.1:7000';
const PRIMARY_URL = 'postgres://postgres@127.0.0.1:5000/chipin';
const NODES = { node1: 8008, node2: 8009 } as const;
const WORKERS = 6;
const WARM_UP_MS = 4_000;
/** After the first successful write, the load goes on this long (the pools settle). */
const AFTER_RECOVERY_MS = 5_000;
/** The drill gives up (FAIL) if no write succeeds this long after the kill. */
const GIVE_UP_MS = 90_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** The checks' connection to the new primary: connecting, and each statement. */
const DB_CONNECT_TIMEOUT_MS = 10_000;
const DB_STATEMENT_TIMEOUT_MS = 30_000;
/** Past the reconciliation job's 20 minutes (RECONCILE_AFTER_MS), in seconds. */
const RECONCILE_AFTER_S = 21 * 60;
/** How long the drill waits, without moving the clock, for the payments in doubt to be resolved by the job (every 5 s, after a lease of 10 s at most). */
const IN_DOUBT_WAIT_MS = 30_000;

/** Every delivery attempt of a paid purchase is awaited at most this long after the load. */
const WEBHOOK_WAIT_MS = 60_000;
const WEBHOOK_PORT = 5459;
/** Every fourth paid purchase is refunded this much, once, through the Merchant API. */
const REFUND_CENTS = 300;

const webhook = JSON.parse(readFileSync(join(dir, 'webhook.json'), 'utf8')) as { token: string };
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

let answers503 = 0;
/** The 503s without a JSON body or without Retry-After, by what they lacked. */
const answers503Bare = new Map<string, number>();
interface Outcome {
  status: number; // 0: no answer (connection refused or cut, timeout)
  body: unknown;
}
/** How long each request of the load waited for its answer (or for giving up), in ms. */
const waits: number[] = [];
let longestWait = { ms: 0, what: '' };
/** "No request waits more than 5 s" (docs/deployment.md#bounded-waits). */
const WAIT_BOUND_MS = 5_000;
async function post(path: string, body: unknown, idempotencyKey?: string): Promise<Outcome> {
  const sentAt = performance.now();
  const outcome = await send(path, body, idempotencyKey);
  const ms = performance.now() - sentAt;
  waits.push(ms);
  if (ms > longestWait.ms) longestWait = { ms, what: `${path.replace(/pur_[0-9a-f-]+/, 'pur_…')} ${outcome.status || 'no answer'}` };
  return outcome;
}
async function send(path: string, body: unknown, idempotencyKey?: string): Promise<Outcome> {
  try {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const res = await fetch(BASE + path, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON: counted below when it is a 503 */
    }
    // Every 503 a client sees, Chipin's or HAProxy's, is JSON with Retry-After (docs/api-conventions.md#errors-during-a-failover).
    if (res.status === 503) {
      answers503++;
      const json = typeof parsed === 'object' && parsed !== null && 'error' in parsed;
      const retryAfter = res.headers.get('retry-after');
      if (!json || !retryAfter) {
        const lacked = `${json ? 'JSON' : 'not JSON'}, Retry-After ${retryAfter ?? 'missing'}`;
        answers503Bare.set(lacked, (answers503Bare.get(lacked) ?? 0) + 1);
      }
    }
    return { status: res.status, body: parsed };
  } catch {
    return { status: 0, body: undefined };
  }
}

// What the load saw.
const acknowledgedCreates = new Set<string>();
const acknowledgedPays = new Set<string>();
const acknowledgedRefunds = new Map<string, string>(); // refund id -> purchase id
const failures = new Map<string, number>(); // "create 503" -> count
let requests = 0;
let killAt: number | undefined;
let firstWriteAfterKill: number | undefined;
let lastFailureAfterKill: number | undefined;
let stopAt = Infinity;

function noteFailure(kind: string, status: number): void {
  const key = `${kind} ${status || 'no answer'}`;
  failures.set(key, (failures.get(key) ?? 0) + 1);
  // A 409 is an answer of a working service (a key whose first request died with the primary,
  // held until abandoned; a purchase already paid), not the outage.
  if (killAt !== undefined && status !== 409) lastFailureAfterKill = now();
}

/**
 * A write acknowledged: the first one whose request left after the kill marks recovery.
 * Requests sent before the kill may have been answered by the old primary in its last instant.
 */
function noteWrite(startedAt: number): void {
  if (killAt !== undefined && startedAt > killAt && firstWriteAfterKill === undefined) firstWriteAfterKill = now();
}

/** One client: create a purchase (retrying with the same Idempotency-Key), pay every other one. */
async function worker(w: number): Promise<void> {
  for (let n = 0; now() < stopAt; n++) {
    const key = randomUUID();
    let id: string | undefined;
    while (id === undefined && now() < stopAt) {
      const startedAt = now();
      requests++;
      const res = await post('/api/merchants/v1/purchases', { title: `Drill ${w}-${n}`, amount: 1000 + n, client: { email: `drill-${w}-${n}@shop.test` } }, key);
      if (res.status === 201 || res.status === 200) {
        id = (res.body as { id: string }).id;
        acknowledgedCreates.add(id);
        noteWrite(startedAt);
      } else {
        if (res.status === 401) await refreshToken().catch(() => {});
        noteFailure('create', res.status);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    if (id === undefined || n % 2 === 1) continue;
    // Paying again after an answer that never came is what a shopper's browser does: the
    // second attempt must not charge the card again (checked at the end).
    for (let attempt = 0; now() < stopAt; attempt++) {
      const startedAt = now();
      requests++;
      const res = await post(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242 4242 4242 4242' });
      if (res.status === 200) {
        acknowledgedPays.add(id);
        noteWrite(startedAt);
        break;
      }
      noteFailure('pay', res.status);
      if (res.status === 409) break; // paid by an attempt whose answer was lost, or no longer payable
      if (res.status === 401) await refreshToken().catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!acknowledgedPays.has(id) || n % 4 !== 0) continue;
    // A partial refund, retried with its Idempotency-Key until acknowledged: however many
    // attempts the failover cost, the shopper gets it back once (checked at the end).
    const refundKey = randomUUID();
    while (now() < stopAt) {
      const startedAt = now();
      requests++;
      const res = await post(`/api/merchants/v1/purchases/pur_${id}/refunds`, { amount: REFUND_CENTS, reason: 'drill' }, refundKey);
      if (res.status === 201 || res.status === 200) {
        acknowledgedRefunds.set((res.body as { id: string }).id.replace(/^ref_/, ''), id);
        noteWrite(startedAt);
        break;
      }
      noteFailure('refund', res.status);
      if (res.status === 406) break; // not refundable (an answer of a working service)
      if (res.status === 401) await refreshToken().catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * The merchant's webhook endpoint: what it received, by purchase. Deliveries are at least once
 * (a retry after an answer lost in the failover): duplicates are counted by `triggerID`, which
 * the receiver de-duplicates on (docs/webhooks.md).
 */
const processed = new Set<string>(); // purchase ids with a paymentProcessed
const triggerIds = new Set<number>();
let webhookDuplicates = 0;
let webhookBadToken = 0;
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    try {
      const event = JSON.parse(body) as { triggerID: number; triggerName: string; token: string; objects: { purchaseId?: string } };
      if (event.token !== webhook.token) webhookBadToken++;
      else if (triggerIds.has(event.triggerID)) webhookDuplicates++;
      else {
        triggerIds.add(event.triggerID);
        if (event.triggerName === 'paymentProcessed' && event.objects.purchaseId) processed.add(event.objects.purchaseId);
      }
    } catch {
      webhookBadToken++;
    }
    res.writeHead(200).end();
  });
});

async function leader(): Promise<keyof typeof NODES | undefined> {
  for (const [name, port] of Object.entries(NODES) as [keyof typeof NODES, number][]) {
    const res = await fetch(`http://127.0.0.1:${port}/primary`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
    if (res?.status === 200) return name;
  }
  return undefined;
}

const pidIn = (file: string): number => Number(readFileSync(file, 'utf8').split('\n')[0]);

/**
 * Starts the load, kills the leader after the warm-up (DRILL_KILL), and stops the load once a
 * write succeeded after the kill (or GIVE_UP_MS passed).
 */
async function loadAndKill(before: keyof typeof NODES): Promise<{ createdBeforeKill: number; killedAt: number }> {
  const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  await new Promise((r) => setTimeout(r, WARM_UP_MS));
  const createdBeforeKill = acknowledgedCreates.size;
  const postmaster = pidIn(join(dir, before, 'postmaster.pid'));
  killAt = now();
  if (killMode === 'node') process.kill(pidIn(join(dir, 'run', `patroni-${before}.pid`)), 'SIGKILL');
  process.kill(postmaster, 'SIGKILL');
  console.log(
    `SIGKILL ${killMode === 'node' ? `${before}'s Patroni and postmaster` : `${before}'s postmaster`} (pid ${postmaster}) after ${createdBeforeKill} acknowledged purchases`,
  );

  while (firstWriteAfterKill === undefined && now() - killAt < GIVE_UP_MS) await new Promise((r) => setTimeout(r, 50));
  stopAt = firstWriteAfterKill === undefined ? now() : now() + AFTER_RECOVERY_MS;
  await load;
  return { createdBeforeKill, killedAt: killAt };
}

/**
 * What the new primary holds after the load (every acknowledged write; nothing charged, refunded,
 * run or written twice), the payments in doubt resolved on the way; `startedAt` bounds the jobs checked.
 */
async function checkPrimary(startedAt: Date, recovery: number | undefined, killedAt: number) {
  // The checks, on whatever is primary now (through HAProxy's primary port).
  const db = new pg.Client({
    connectionString: PRIMARY_URL,
    connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS,
    statement_timeout: DB_STATEMENT_TIMEOUT_MS,
    query_timeout: DB_STATEMENT_TIMEOUT_MS + 5_000,
  });
  await db.connect();
  const orphanCharges = `SELECT t.id FROM sandbox_psp_transactions t
      WHERE t.status IN ('held', 'settled') AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.psp_transaction_id = t.id)`;
  // A payment whose request lost the database between the PSP's answer and its recording stays
  // pending (and its charge unreferenced) until it is resolved: in doubt once its lease ended or
  // lapsed, the reconciliation job (every 5 s) resolves it by itself within seconds
  // (docs/money-operations.md#payments-in-doubt). Waited for here without moving the clock,
  // bounded; then the sandbox clock is moved past the 20-minute rule for anything else.
  const unresolved = await db.query("SELECT id FROM payments WHERE status IN ('pending', 'requires_action')");
  const orphansBefore = await db.query(orphanCharges);
  let pendingLeft = unresolved.rowCount ?? 0;
  for (let i = 0; i < IN_DOUBT_WAIT_MS / 500 && pendingLeft > 0; i++) {
    await new Promise((r) => setTimeout(r, 500));
    pendingLeft = (await db.query("SELECT id FROM payments WHERE status = 'pending'")).rowCount ?? 0;
  }
  const inDoubtResolvedAt = recovery === undefined ? undefined : now() - (killedAt + recovery);
  await refreshToken();
  const clock = await send('/api/sandbox/clock', { advance_seconds: RECONCILE_AFTER_S }); // not the load's: not in its waits
  if (clock.status !== 200) throw new Error(`sandbox clock: ${clock.status} ${JSON.stringify(clock.body)}`);
  const ids = [...acknowledgedCreates];
  const found = await db.query<{ id: string }>('SELECT id FROM purchases WHERE id = ANY($1::uuid[])', [ids]);
  const missing = ids.length - found.rowCount!;
  const paidRows = await db.query<{ id: string }>(
    "SELECT DISTINCT purchase_id AS id FROM payments WHERE purchase_id = ANY($1::uuid[]) AND status IN ('authorized', 'captured', 'refunded')",
    [[...acknowledgedPays]],
  );
  const paidMissing = acknowledgedPays.size - paidRows.rowCount!;
  // A card charged twice: two live payments (a refunded one included) for one purpose of one purchase (and pledge), or a
  // sandbox PSP charge no payment refers to, or one charge two payments refer to.
  const doubled = await db.query(
    `SELECT purchase_id, purpose, pledge_id, count(*) FROM payments
      WHERE status IN ('authorized', 'captured', 'refunded') GROUP BY 1, 2, 3 HAVING count(*) > 1`,
  );
  const orphans = await db.query(orphanCharges);
  // Every acknowledged refund on the new primary, succeeded; each refunded purchase refunded once,
  // by Chipin and at the sandbox PSP.
  const refundIds = [...acknowledgedRefunds.keys()];
  const refundsFound = await db.query("SELECT id FROM refunds WHERE id = ANY($1::uuid[]) AND state = 'succeeded'", [refundIds]);
  const refundsMissing = refundIds.length - refundsFound.rowCount!;
  const refundedTwice = await db.query(
    `SELECT p.purchase_id FROM payments p JOIN sandbox_psp_transactions t ON t.id = p.psp_transaction_id
      WHERE p.purchase_id = ANY($1::uuid[]) GROUP BY p.purchase_id
      HAVING sum(t.refunded_cents) <> $2 OR (SELECT coalesce(sum(r.amount_cents), 0) FROM refunds r WHERE r.purchase_id = p.purchase_id AND r.state = 'succeeded') <> $2`,
    [[...new Set(acknowledgedRefunds.values())], REFUND_CENTS],
  );
  const stillUnresolved = await db.query("SELECT id FROM payments WHERE status IN ('pending', 'requires_action')");
  const shared = await db.query('SELECT psp_transaction_id FROM payments WHERE psp_transaction_id IS NOT NULL GROUP BY 1 HAVING count(*) > 1');
  // Jobs run once: a job is claimed again only if its run was cut off before its outcome was
  // recorded (at least once, docs/jobs-and-clock.md); every job of the drill falls due after the
  // recovery (refund resumptions, reconciliation: the sandbox clock move), so none should have
  // more than one attempt.
  const jobsTwice = await db.query<{ kind: string; n: number }>('SELECT kind, count(*)::int AS n FROM jobs WHERE attempts > 1 AND created_at >= $1 GROUP BY kind ORDER BY kind', [
    startedAt,
  ]);
  const jobsRunTwice = jobsTwice.rows.reduce((sum, r) => sum + r.n, 0);
  // Ledger rows written once: the ledger has no natural key per operation (migration 037: only a
  // dispute's entries are unique), so a row written twice shows as a payment whose entries do not
  // add up to its captured_cents - refunded_cents, the ledger's invariant.
  const ledgerOff = await db.query(
    `SELECT p.id FROM payments p LEFT JOIN ledger_entries l ON l.payment_id = p.id AND l.kind IN ('capture', 'refund')
      GROUP BY p.id, p.captured_cents, p.refunded_cents
     HAVING coalesce(sum(CASE l.kind WHEN 'capture' THEN l.amount_cents ELSE -l.amount_cents END), 0) <> p.captured_cents - p.refunded_cents`,
  );
  const sync = await db.query<{ names: string }>("SELECT current_setting('synchronous_standby_names') AS names");
  await db.end();
  return {
    unresolved,
    orphansBefore,
    pendingLeft,
    inDoubtResolvedAt,
    missing,
    paidMissing,
    doubled,
    orphans,
    refundsMissing,
    refundedTwice,
    stillUnresolved,
    shared,
    jobsTwice,
    jobsRunTwice,
    ledgerOff,
    sync,
  };
}

/** Prints what the drill saw and found, and answers whether it passed. */
function report(
  run: { before: string; after: string | undefined; recovery: number | undefined; killedAt: number; createdBeforeKill: number; webhooksMissing: number },
  checks: Awaited<ReturnType<typeof checkPrimary>>,
): boolean {
  const { before, after, recovery, killedAt, createdBeforeKill, webhooksMissing } = run;
  const {
    unresolved,
    orphansBefore,
    pendingLeft,
    inDoubtResolvedAt,
    missing,
    paidMissing,
    doubled,
    orphans,
    refundsMissing,
    refundedTwice,
    stillUnresolved,
    shared,
    jobsTwice,
    jobsRunTwice,
    ledgerOff,
    sync,
  } = checks;
  // Every database failure answers 503 (docs/api-conventions.md#errors-during-a-failover): a 500
  // is a failure the code did not expect.
  const answers500 = [...failures].filter(([k]) => k.endsWith(' 500')).reduce((sum, [, v]) => sum + v, 0);
  const sortedWaits = [...waits].sort((a, b) => a - b);
  const p99 = sortedWaits[Math.min(sortedWaits.length - 1, Math.ceil(sortedWaits.length * 0.99) - 1)] ?? 0;
  const overBound = waits.filter((ms) => ms > WAIT_BOUND_MS).length;
  const lines = [
    `leader before: ${before}; after: ${after ?? 'none'}; synchronous_standby_names now: '${sync.rows[0]!.names}'`,
    `kill -> first successful write: ${recovery === undefined ? `none within ${seconds(GIVE_UP_MS)}` : seconds(recovery)}`,
    `kill -> last failed request: ${lastFailureAfterKill === undefined ? 'none' : seconds(lastFailureAfterKill - killedAt)}`,
    `requests: ${requests}; failed answers: ${[...failures].map(([k, v]) => `${k} x${v}`).join(', ') || 'none'}`,
    `answers 500: ${answers500}; answers 503: ${answers503}, without a JSON body or Retry-After: ${[...answers503Bare].map(([k, v]) => `${k} x${v}`).join(', ') || 'none'}`,
    `waits for an answer: longest ${seconds(longestWait.ms)} (${longestWait.what}), p99 ${seconds(p99)}; over ${seconds(WAIT_BOUND_MS)}: ${overBound} of ${waits.length}`,
    `acknowledged purchases: ${acknowledgedCreates.size} (${createdBeforeKill} before the kill); missing on the new primary: ${missing}`,
    `acknowledged payments: ${acknowledgedPays.size}; without a live payment on the new primary: ${paidMissing}`,
    `acknowledged refunds: ${acknowledgedRefunds.size}; missing on the new primary: ${refundsMissing}; purchases refunded other than once (Chipin or PSP): ${refundedTwice.rowCount}`,
    `payments left unresolved by the kill: ${unresolved.rowCount}, ${orphansBefore.rowCount} of them charged; pending without any clock move ${inDoubtResolvedAt === undefined ? '' : `${seconds(inDoubtResolvedAt)} after the first write`}: ${pendingLeft}; after the reconciliation job (sandbox clock +${RECONCILE_AFTER_S / 60} min): ${stillUnresolved.rowCount} unresolved`,
    `webhooks: paymentProcessed for ${acknowledgedPays.size - webhooksMissing} of ${acknowledgedPays.size} acknowledged payments (missing: ${webhooksMissing}); ${webhookDuplicates} delivered twice (same triggerID); ${webhookBadToken} with a wrong token`,
    `cards charged twice: ${doubled.rowCount} doubled payments, ${orphans.rowCount} PSP charges no payment refers to, ${shared.rowCount} charges shared by two payments`,
    `jobs run more than once (attempts > 1): ${jobsRunTwice}${jobsRunTwice ? ` (${jobsTwice.rows.map((r) => `${r.kind} x${r.n}`).join(', ')})` : ''}; payments whose ledger rows do not add up to captured - refunded: ${ledgerOff.rowCount}`,
  ];
  for (const line of lines) console.log(line);
  const pass =
    recovery !== undefined &&
    answers500 === 0 &&
    answers503Bare.size === 0 &&
    missing === 0 &&
    paidMissing === 0 &&
    refundsMissing === 0 &&
    refundedTwice.rowCount === 0 &&
    doubled.rowCount === 0 &&
    orphans.rowCount === 0 &&
    shared.rowCount === 0 &&
    stillUnresolved.rowCount === 0 &&
    pendingLeft === 0 &&
    overBound === 0 &&
    webhooksMissing === 0 &&
    webhookBadToken === 0 &&
    jobsRunTwice === 0 &&
    ledgerOff.rowCount === 0;
  return pass;
}

async function main(): Promise<void> {
  // The jobs checked are those scheduled from here on (the database's clock is this machine's).
  const startedAt = new Date();
  await new Promise<void>((resolve, reject) => receiver.once('error', reject).listen(WEBHOOK_PORT, '127.0.0.1', resolve));
  await refreshToken();
  const before = await leader();
  if (!before) throw new Error('no leader: is the topology up (npm run topology:up)?');
  // Without a synchronous standby the kill would leave nothing to promote.
  const standby = (Object.keys(NODES) as (keyof typeof NODES)[]).find((n) => n !== before)!;
  const syncAnswer = await fetch(`http://127.0.0.1:${NODES[standby]}/sync`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
  if (syncAnswer?.status !== 200) throw new Error(`${standby} is not the synchronous standby (deploy/topology/rejoin.sh ${standby} waits for it)`);
  console.log(`== failover drill: ${WORKERS} clients, kill mode "${killMode}", leader ${before}`);

  const { createdBeforeKill, killedAt } = await loadAndKill(before);
  const after = await leader();

  const recovery = firstWriteAfterKill === undefined ? undefined : firstWriteAfterKill - killedAt;

  const checks = await checkPrimary(startedAt, recovery, killedAt);

  // Every acknowledged payment's paymentProcessed reaches the merchant, the failover
  // notwithstanding (the delivery is written with the payment, in its transaction).
  const waitFrom = now();
  while ([...acknowledgedPays].some((id) => !processed.has(id)) && now() - waitFrom < WEBHOOK_WAIT_MS) await new Promise((r) => setTimeout(r, 200));
  const webhooksMissing = [...acknowledgedPays].filter((id) => !processed.has(id)).length;
  receiver.close();

  const pass = report({ before, after, recovery, killedAt, createdBeforeKill, webhooksMissing }, checks);
  console.log(pass ? 'PASS' : 'FAIL');
  process.exitCode = pass ? 0 : 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(2); // the webhook receiver would keep the process alive
});
