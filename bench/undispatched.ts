/**
 * Events the delivery worker has still to dispatch: this build's outbox rows and the previous
 * build's events written with `dispatched_at` NULL (docs/webhooks.md#how-it-works-operators).
 * A benchmark waits for none to be left before it reads what its requests wrote.
 */
export const UNDISPATCHED_SQL = 'SELECT (SELECT count(*)::int FROM event_outbox) + (SELECT count(*)::int FROM purchase_events WHERE dispatched_at IS NULL) AS n';

/** Waits until `count()` (the query above, on the benchmark's database) answers 0; throws after `timeoutMs`. */
export async function untilNoneUndispatched(count: () => Promise<number>, timeoutMs: number, everyMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await count();
    if (n === 0) return;
    if (Date.now() > deadline) throw new Error(`${n} events still undispatched after ${timeoutMs / 1000} s`);
    await new Promise((ok) => setTimeout(ok, everyMs));
  }
}
