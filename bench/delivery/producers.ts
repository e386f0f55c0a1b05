/**
 * bench:delivery's producers: the events of the burst (payment.failed rows in SQL, or aborts
 * through the API), paced or all at once, and the quiet merchant's events of BENCH_QUIET.
 */
import type pg from 'pg';
import { OUTBOX_CHANNEL } from '../../src/domain/events.ts';
import { pool } from './chipin.ts';
import { held } from './lifecycle.ts';
import { now, settings, sleep } from './settings.ts';

/** The outbox row of each event written (`e`), as the service writes its events (docs/webhooks.md#how-it-works-operators). */
const TO_OUTBOX = 'INSERT INTO event_outbox (event_id, account_id, purchase_id) SELECT id, account_id, purchase_id FROM e';

export interface Committed {
  /** When the commit was known to this process (COMMIT returned; the abort's answer arrived). */
  at: number;
  /** api: when the request started (commit happened between it and `at`). */
  sentAt?: number;
}

/** With BENCH_RATE, waits until event `i` is due (`t0` + i / rate). */
async function onSchedule(t0: number, i: number): Promise<void> {
  if (settings.rate === 0) return;
  const wait = t0 + (i * 1000) / settings.rate - now();
  if (wait > 0) await sleep(wait);
}

/**
 * payment.failed rows, BENCH_BATCH per transaction, committed back to back (or on schedule) by
 * BENCH_PRODUCERS connections at once; keyed by event id.
 */
export async function produceSql(clients: pg.Client[], accountId: string, purchases: string[], commits: Map<string, Committed>): Promise<void> {
  const t0 = now();
  const starts = Array.from({ length: Math.ceil(settings.events / settings.batch) }, (_, i) => i * settings.batch);
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (next < starts.length) {
        const start = starts[next++]!;
        const count = Math.min(settings.batch, settings.events - start);
        await onSchedule(t0, start);
        const targets = Array.from({ length: count }, (_, i) => purchases[(start + i) % purchases.length]!);
        await client.query('BEGIN');
        const { rows } = await client.query<{ id: string }>(
          `WITH e AS (
             INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at, dispatched_at)
             SELECT p.account_id, p.id, 'payment.failed', p.state, p.state,
               jsonb_build_object('bench', t.n, 'error', 'card declined'), clock_timestamp(), clock_timestamp()
             FROM unnest($2::uuid[]) WITH ORDINALITY AS t(purchase_id, n)
             JOIN purchases p ON p.account_id = $1 AND p.id = t.purchase_id
             ORDER BY t.n
             RETURNING id, account_id, purchase_id
           ), o AS (${TO_OUTBOX})
           SELECT id FROM e`,
          [accountId, targets],
        );
        await client.query('COMMIT');
        const at = now();
        held.notifier?.publish(OUTBOX_CHANNEL);
        if (rows.length !== count) throw new Error(`inserted ${rows.length} events instead of ${count}`);
        for (const r of rows) commits.set(String(r.id), { at });
      }
    }),
  );
}

/** One abort per purchase, BENCH_API_CONCURRENCY at once; keyed by purchase id. */
export async function produceApi(url: string, token: string, purchases: string[], commits: Map<string, Committed>): Promise<void> {
  const t0 = now();
  await pool(purchases, settings.apiConcurrency, async (id, i) => {
    await onSchedule(t0, i);
    const sentAt = now();
    const res = await fetch(`${url}/api/purchases/pur_${id}/abort`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    const at = now();
    if (res.status !== 200) throw new Error(`abort: ${res.status} ${text.slice(0, 300)}`);
    commits.set(id, { at, sentAt });
  });
}

/**
 * BENCH_QUIET: one payment.failed event a tick for the quiet merchant (round robin over its
 * purchases), each in its own transaction, until `stop` resolves; keyed by event id.
 */
export async function produceQuiet(client: pg.Client, accountId: string, purchases: string[], commits: Map<number, number>, stop: Promise<unknown>): Promise<void> {
  let stopped = false;
  void stop.finally(() => (stopped = true));
  const t0 = now();
  for (let i = 0; !stopped; i++) {
    const wait = t0 + (i * 1000) / settings.quietRate - now();
    if (wait > 0) await Promise.race([sleep(wait), stop]);
    if (stopped) break;
    const { rows } = await client.query<{ id: string }>(
      `WITH e AS (
         INSERT INTO purchase_events (account_id, purchase_id, type, from_state, to_state, data, created_at, dispatched_at)
         SELECT account_id, id, 'payment.failed', state, state, '{"quiet":true}', clock_timestamp(), clock_timestamp() FROM purchases WHERE account_id = $1 AND id = $2
         RETURNING id, account_id, purchase_id
       ), o AS (${TO_OUTBOX})
       SELECT id FROM e`,
      [accountId, purchases[i % purchases.length]],
    );
    commits.set(Number(rows[0]!.id), now());
    held.notifier?.publish(OUTBOX_CHANNEL);
  }
}
