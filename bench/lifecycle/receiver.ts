/**
 * bench:lifecycle's webhook receiver, in the benchmark process: 200 at once (as
 * bench/delivery/receiver.ts), each webhook noted by purchase and trigger name, and a lifecycle
 * step can wait until the webhooks it should cause have arrived.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { LOOPBACK } from '../children.ts';

interface Waiter {
  purchaseId: string;
  want: Map<string, number>;
  done: (at: number) => void;
}

export class Receiver {
  port = 0;
  /** Webhooks received, all purchases. */
  received = 0;
  /** Bodies that did not parse or named no purchase. */
  unexpected = 0;
  /** Per purchase, per trigger name, how many arrived. */
  readonly #seen = new Map<string, Map<string, number>>();
  #waiters = new Set<Waiter>();
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        res.writeHead(200, { 'content-length': '0' }).end();
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { triggerName?: string; objects?: { purchaseId?: string } };
          const id = body.objects?.purchaseId;
          if (!id || !body.triggerName) throw new Error('no purchase');
          this.received++;
          const counts = this.#seen.get(id) ?? new Map<string, number>();
          counts.set(body.triggerName, (counts.get(body.triggerName) ?? 0) + 1);
          this.#seen.set(id, counts);
          for (const w of this.#waiters) if (w.purchaseId === id && this.#satisfied(w)) w.done(at);
        } catch {
          this.unexpected++;
        }
      });
    });
    this.#server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  #satisfied(w: Waiter): boolean {
    const counts = this.#seen.get(w.purchaseId);
    for (const [name, n] of w.want) if ((counts?.get(name) ?? 0) < n) return false;
    return true;
  }

  /** What arrived for a purchase so far, `name×n`, for error messages. */
  describe(purchaseId: string): string {
    const counts = this.#seen.get(purchaseId);
    return counts ? [...counts].map(([k, n]) => `${k}×${n}`).join(', ') : 'nothing';
  }

  /**
   * Resolves with the arrival time (performance.now()) once the purchase has received at least
   * `want`'s webhooks (cumulative counts by trigger name); rejects after `timeoutMs`.
   */
  until(purchaseId: string, want: Record<string, number>, timeoutMs: number): Promise<number> {
    const wanted = new Map(Object.entries(want));
    const probe = (): boolean => this.#satisfied({ purchaseId, want: wanted, done: () => {} });
    if (probe()) return Promise.resolve(performance.now());
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(w);
        fail(new Error(`webhooks for ${purchaseId} did not arrive within ${timeoutMs / 1000} s: wanted ${JSON.stringify(want)}, got ${this.describe(purchaseId)}`));
      }, timeoutMs);
      const w: Waiter = {
        purchaseId,
        want: wanted,
        done: (at) => {
          clearTimeout(timer);
          this.#waiters.delete(w);
          ok(at);
        },
      };
      this.#waiters.add(w);
    });
  }

  /** Forgets a finished purchase (a run makes thousands). */
  forget(purchaseId: string): void {
    this.#seen.delete(purchaseId);
  }

  async start(): Promise<void> {
    await new Promise<void>((ok) => this.#server.listen(0, LOOPBACK, ok));
    this.port = (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((ok) => this.#server.close(() => ok()));
  }
}
