import { PspIntegrationError } from '../connector.ts';

type Fetch = typeof globalThis.fetch;

export interface GlobalFetchCall<T> {
  /** The connector's name, in the fault. */
  psp: string;
  /** The SDK as the fault names it, e.g. `Mercado Pago SDK`. */
  sdk: string;
  /** Our `fetch`: one over the outbound client (`PspHttp.fetchWith`, `PspClient.fetchAs`). */
  fetch: Fetch;
  /** The SDK call; it must call the global `fetch` before its first `await`. */
  call: () => Promise<T>;
  /** Sets another process-wide value the SDK reads for the same span; returns what restores it. */
  enter?: () => () => void;
}

/**
 * One call of an SDK that has no transport option of its own but sends through the global
 * `fetch` (docs/psp-connectors.md#the-connector-kit). The global is ours for
 * the synchronous span of the call only: set, the call started, restored in a `finally`, with no
 * `await` in between. JavaScript runs that span to its end before any other code of the process,
 * so no other code (another connector's call, another account's) ever sees our `fetch`, and two
 * such calls in flight at once (interleaved at their awaits) each find the global as it was and
 * leave it so. The other side of it: a `fetch` an SDK made after an await would be the process's
 * own, not the outbound client.
 *
 * So the SDK must call `fetch` inside the span. A call that did not is stopped: if it settled on
 * promises alone (the SDK refused its input, e.g. checkout-sdk-node's `ValueError`), its outcome
 * is given back as is; otherwise it is the `bad_response` fault, naming the SDK version as not
 * fitting this hook (what it sends later, through the process's own `fetch`, is not awaited).
 * Each connector's tests pin that its pinned SDK version calls `fetch` synchronously in every
 * method it uses.
 */
export async function callWithGlobalFetch<T>(o: GlobalFetchCall<T>): Promise<T> {
  const g = globalThis as unknown as { fetch: Fetch };
  const saved = g.fetch;
  let sent = false;
  const ours = o.fetch;
  g.fetch = ((input: string | URL | Request, init?: RequestInit) => {
    sent = true;
    return ours(input, init);
  }) as Fetch;
  // Scheduled before the call, so that it runs before any callback the SDK schedules (see below).
  let turned!: () => void;
  const turn = new Promise<void>((resolve) => (turned = resolve));
  const probe = setImmediate(() => turned());
  let leave: (() => void) | undefined;
  let pending: Promise<T>;
  try {
    leave = o.enter?.();
    pending = o.call();
  } finally {
    leave?.();
    g.fetch = saved;
  }
  if (sent) {
    clearImmediate(probe);
    return pending;
  }
  // Every promise reaction runs before that first `setImmediate` callback: an SDK method that
  // refused its input awaiting nothing but promises has settled by then; one that waits on
  // anything else (a timer, the network, a callback it scheduled) has not.
  let settled = false;
  pending.then(
    () => (settled = true),
    () => (settled = true),
  );
  await turn;
  if (settled) return pending;
  pending.catch(() => undefined);
  throw new PspIntegrationError(o.psp, 'bad_response', `the ${o.sdk} did not send its request synchronously: the outbound hook does not fit this SDK version`);
}
