/**
 * The bare baseline's lifecycle (bench/bare-server.ts's `/bare/movements` and `/bare/events`): as
 * many money movements and events per lifecycle as Chipin's measured window wrote, one HTTP
 * request and one single-row transaction each, one after another. The averages are fractional:
 * lifecycle `n` writes floor((n+1)·avg) − floor(n·avg) of each, so any run of lifecycles writes
 * the average.
 */
import { randomUUID } from 'node:crypto';
import { REQUEST_TIMEOUT_MS } from './settings.ts';

export interface BarePlan {
  movementsPerLifecycle: number;
  eventsPerLifecycle: number;
}

const share = (avg: number, n: number) => Math.floor((n + 1) * avg) - Math.floor(n * avg);

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST ${new URL(url).pathname} answered ${res.status}: ${text.slice(0, 300)}`);
}

/** Lifecycle number `n` against the bare server at `url`. */
export async function runBareLifecycle(url: string, plan: BarePlan, n: number): Promise<void> {
  const purchaseId = randomUUID();
  for (let i = 0; i < share(plan.movementsPerLifecycle, n); i++) await post(`${url}/bare/movements`, { purchase_id: purchaseId, kind: 'charge', amount_cents: 10_000 });
  for (let i = 0; i < share(plan.eventsPerLifecycle, n); i++) await post(`${url}/bare/events`, { purchase_id: purchaseId, name: 'event' });
}
