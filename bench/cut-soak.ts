/**
 * Connection-cut soak (docs/api-conventions.md#idempotency-key): one `chipin serve` whose
 * PostgreSQL connections all go through a TCP proxy that cuts every one of them every 1–4 s,
 * under a load of keyed requests — a purchase created, paid, then refunded twice — each retried
 * with its Idempotency-Key until it has a final answer, as a client following the docs would.
 * Then the cuts stop and every figure that must be zero is read from the database and the sandbox
 * PSP's own records: a key answered twice differently, a refund made twice for one key, money
 * refunded beyond what was acknowledged, a key left without a final answer.
 *
 *   DATABASE_URL=postgres://… npm run bench:cut-soak -- [seconds=60] [clients=6]
 *
 * Loopback only; every loop and wait is bounded. Exit code 1 when a figure that must be zero is not.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, connect, type Socket } from 'node:net';
import pg from 'pg';
import { freePort, killAllSync, LOOPBACK, requireLoopback, runTs, spawnTs, stopAll, waitForOk } from './children.ts';

const seconds = Math.min(600, Number(process.argv[2] ?? 60));
const clients = Math.min(32, Number(process.argv[3] ?? 6));
const base = process.env.DATABASE_URL;
if (!base) {
  console.error('bench:cut-soak needs DATABASE_URL (PostgreSQL): the cuts are TCP connections to it');
  process.exit(2);
}
requireLoopback(base, 'DATABASE_URL');
process.on('exit', killAllSync);

/** A TCP proxy to the database that cuts every connection through it when told. */
async function cuttingProxy(target: URL): Promise<{ port: number; cut(): number; close(): void }> {
  const open = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    open.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, LOOPBACK, resolve));
  return {
    port,
    cut: () => {
      const n = open.size / 2;
      for (const socket of open) socket.destroy();
      open.clear();
      return n;
    },
    close: () => server.close(),
  };
}

const schema = `cutsoak_${randomBytes(5).toString('hex')}`;
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`CREATE SCHEMA ${schema}`);
const withSchema = (url: string) => `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
const direct = withSchema(base);
const proxy = await cuttingProxy(new URL(base));
const proxied = new URL(base);
proxied.host = `${LOOPBACK}:${proxy.port}`;
const db = new pg.Client({ connectionString: direct });

type Answer = { status: number; body: Record<string, any> };
/** Statuses a client sends again with the same key: none is a final answer. */
const AGAIN = new Set([0, 409, 429, 500, 502, 503, 504]);

let cuts = 0;
let connectionsCut = 0;
try {
  const port = await freePort();
  const env = {
    DATABASE_URL: withSchema(proxied.toString()),
    PORT: String(port),
    HOST: LOOPBACK,
    PUBLIC_URL: `http://${LOOPBACK}:${port}`,
    LOG_LEVEL: 'warn',
    CHIPIN_ENV: 'sandbox',
  };
  // Migrations and the merchant straight to the database, before the cuts start.
  const merchant = JSON.parse(
    await runTs('src/main.ts', ['merchant', 'create', '--name', 'Cut Shop', '--email', `cut-${schema}@shop.test`, '--json'], { ...env, DATABASE_URL: direct }),
  ) as {
    api_key: string;
    api_secret: string;
  };
  await db.connect();
  const child = spawnTs('cut-soak', 'src/main.ts', ['serve'], env);
  const url = `http://${LOOPBACK}:${port}`;
  await waitForOk(child, `${url}/readyz`);
  const basic = 'Basic ' + Buffer.from(`${merchant.api_key}:${merchant.api_secret}`).toString('base64');
  let token = '';
  const newToken = async () => {
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${url}/api/token`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      }).catch(() => undefined);
      if (res?.ok) return ((await res.json()) as { access_token: string }).access_token;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('no access token');
  };
  token = await newToken();

  const send = async (path: string, body: object, key: string): Promise<Answer> => {
    try {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, any> };
    } catch {
      return { status: 0, body: {} };
    }
  };
  const unanswered: string[] = [];
  /** Sends until a final answer, with the same key, for at most 3 minutes. */
  const untilFinal = async (path: string, body: object, key: string): Promise<Answer | undefined> => {
    const until = Date.now() + 180_000;
    for (;;) {
      const answer = await send(path, body, key);
      if (!AGAIN.has(answer.status)) return answer;
      if (Date.now() > until) {
        unanswered.push(key);
        return undefined;
      }
      await new Promise((r) => setTimeout(r, 250 + Math.random() * 500));
    }
  };

  const acknowledged: { purchaseId: string; key: string; refundId: string; amount: number }[] = [];
  let lifecycles = 0;
  const stopAt = Date.now() + seconds * 1000;
  const cutter = (async () => {
    while (Date.now() < stopAt) {
      await new Promise((r) => setTimeout(r, 1000 + Math.random() * 3000));
      connectionsCut += proxy.cut();
      cuts++;
    }
  })();
  const client = async () => {
    while (Date.now() < stopAt) {
      const created = await untilFinal('/api/merchants/v1/purchases', { title: 'Cut', amount: 10_000, client: { email: 'leader@example.com' } }, randomUUID());
      if (created?.status !== 201) continue;
      const id = String(created.body.id);
      const paid = await untilFinal(`/api/sandbox/purchases/pur_${id}/pay`, { card_number: '4242424242424242' }, randomUUID());
      if (paid?.status !== 200) continue;
      for (const amount of [300, 700]) {
        const key = randomUUID();
        const refund = await untilFinal(`/api/merchants/v1/purchases/${id}/refunds`, { amount }, key);
        if (refund?.status === 201) acknowledged.push({ purchaseId: id, key, refundId: String(refund.body.id).replace(/^ref_/, ''), amount });
      }
      lifecycles++;
    }
  };
  await Promise.all([cutter, ...Array.from({ length: clients }, client)]);

  // The cuts stopped: what is still pending at the PSP's side settles by the resume job's run.
  const q = async <T>(sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows as T[];
  const refunds = await q<{ id: string; purchase_id: string; amount_cents: number; state: string }>('SELECT id, purchase_id, amount_cents::int, state FROM refunds');
  const ackIds = new Set(acknowledged.map((a) => a.refundId));
  const refundsNotAcknowledged = refunds.filter((r) => !ackIds.has(r.id));
  const acknowledgedPurchases = new Set(acknowledged.map((a) => a.purchaseId));
  // Per purchase: what the PSP gave back against what the client was told was refunded.
  const atPsp = await q<{ purchase_id: string; refunded: number }>(
    `SELECT p.purchase_id, sum(t.refunded_cents)::int AS refunded FROM payments p JOIN sandbox_psp_transactions t ON t.id = p.psp_transaction_id GROUP BY p.purchase_id`,
  );
  const told = new Map<string, number>();
  for (const a of acknowledged) told.set(a.purchaseId, (told.get(a.purchaseId) ?? 0) + a.amount);
  const overRefunded = atPsp.filter((p) => acknowledgedPurchases.has(p.purchase_id) && p.refunded > (told.get(p.purchase_id) ?? 0));
  const report = {
    seconds,
    clients,
    cuts,
    connections_cut: connectionsCut,
    lifecycles,
    refunds_acknowledged: acknowledged.length,
    refund_rows: refunds.length,
    // A refund row no acknowledged key answered: a second refund made for a key, or a refund whose key never got a final answer.
    refunds_not_acknowledged: refundsNotAcknowledged.length,
    purchases_refunded_beyond_acknowledged: overRefunded.length,
    keys_without_final_answer: unanswered.length,
  };
  console.log(JSON.stringify(report, null, 2));
  if (refundsNotAcknowledged.length > 0) console.log('refunds not acknowledged:', JSON.stringify(refundsNotAcknowledged.slice(0, 10)));
  const bad = report.refunds_not_acknowledged + report.purchases_refunded_beyond_acknowledged + report.keys_without_final_answer;
  process.exitCode = bad > 0 ? 1 : 0;
  token = '';
} finally {
  proxy.cut();
  proxy.close();
  await stopAll();
  await db.end().catch(() => {});
  await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => {});
  await admin.end();
}
