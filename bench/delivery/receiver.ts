/** bench:delivery's webhook receiver: healthy (200 at once), in this process, noting when each webhook arrived. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { LOOPBACK } from '../children.ts';
import { QUIET_PATH, TRIGGER, now } from './settings.ts';

interface Arrival {
  /** The matching key: triggerID (sql producer) or objects.purchaseId (api producer). */
  key: string;
  triggerId: number;
  at: number;
}

/** A healthy webhook receiver: 200 at once, arrival noted when the body is complete. */
export class Receiver {
  readonly arrivals: Arrival[] = [];
  /** Arrivals on QUIET_PATH (BENCH_QUIET's merchant), by triggerID: not part of the burst. */
  readonly quietArrivals = new Map<number, number>();
  /** Bodies that did not parse or carried another trigger. */
  unexpected = 0;
  port = 0;
  onArrival: (() => void) | undefined;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  constructor(keyOf: (body: { triggerID: number; objects?: { purchaseId?: string } }) => string) {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = now();
        res.writeHead(200, { 'content-length': '0' }).end();
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { triggerID: number; triggerName: string; objects?: { purchaseId?: string } };
          if (req.url === QUIET_PATH) {
            if (!this.quietArrivals.has(body.triggerID)) this.quietArrivals.set(body.triggerID, at);
            return;
          }
          if (body.triggerName !== TRIGGER) this.unexpected++;
          else this.arrivals.push({ key: keyOf(body), triggerId: body.triggerID, at });
        } catch {
          this.unexpected++;
        }
        this.onArrival?.();
      });
    });
    this.#server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
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
