import type { WebhookEndpoint } from './webhook-endpoint-repository.ts';
import type { ClaimedDelivery } from './delivery-queue-repository.ts';

/** Shares of a destination claimed ahead, beyond those in flight (see DestinationSlots#ahead). */
export const AHEAD_SHARES = 2;

/** A delivery claimed ahead, with the endpoints read for its claim (`performance.now()` of the read). */
export interface Ahead {
  d: ClaimedDelivery;
  endpoints: Map<string, WebhookEndpoint> | undefined;
  readAt: number;
}

/**
 * What this process holds of each destination (`destinationOf`: a merchant's webhook endpoint, a
 * notification URL): its attempts in flight and its deliveries claimed ahead. The fairness rules
 * count them: no destination more than `perDestination` of the slots, and up to AHEAD_SHARES more
 * shares claimed ahead.
 */
export class DestinationSlots {
  /** Attempts in flight by destination, background and `runDue` alike. */
  readonly #busy = new Map<string, number>();
  /**
   * Claimed ahead, by destination: leased deliveries waiting for a slot of their destination,
   * started as soon as one of its attempts ends, without a claim in between. A claim takes up to
   * AHEAD_SHARES more shares per destination than are in flight: claims run one after another
   * and take longer than a request to a healthy receiver, so with one share ahead a busy
   * destination's slots emptied during each claim, which was the limit of a burst
   * (docs/performance.md). Released at stop.
   */
  readonly #ahead = new Map<string, Ahead[]>();
  #aheadCount = 0;

  constructor(readonly perDestination: number) {}

  /** Deliveries claimed ahead, all destinations together. */
  get aheadCount(): number {
    return this.#aheadCount;
  }

  /** What a claim counts against each destination: its attempts running and its deliveries ahead. */
  held(): Map<string, number> {
    const held = new Map(this.#busy);
    for (const [key, queue] of this.#ahead) held.set(key, (held.get(key) ?? 0) + queue.length);
    return held;
  }

  /** The destination's share is not used up by its attempts in flight. */
  hasRoom(key: string): boolean {
    return (this.#busy.get(key) ?? 0) < this.perDestination;
  }

  /** Deliveries of this destination already wait ahead (a new one queues behind them). */
  isQueued(key: string): boolean {
    return this.#ahead.has(key);
  }

  /** Queues a claimed delivery behind its destination's attempts. */
  queue(key: string, ahead: Ahead): void {
    const queue = this.#ahead.get(key);
    if (queue) queue.push(ahead);
    else this.#ahead.set(key, [ahead]);
    this.#aheadCount++;
  }

  /** Takes what waits ahead, destination by destination, while `hasSlot` says it may start; `start` sees each. */
  takeAhead(hasSlot: (key: string) => boolean, start: (next: Ahead) => void): void {
    for (const [key, queue] of this.#ahead) {
      while (queue.length > 0 && hasSlot(key)) {
        const next = queue.shift()!;
        this.#aheadCount--;
        start(next);
      }
      if (queue.length === 0) this.#ahead.delete(key);
    }
  }

  /** Takes everything claimed ahead (to give it back). */
  takeAllAhead(): ClaimedDelivery[] {
    const all = [...this.#ahead.values()].flat().map((a) => a.d);
    this.#ahead.clear();
    this.#aheadCount = 0;
    return all;
  }

  /** An attempt to the destination starts. */
  enter(key: string): void {
    this.#busy.set(key, (this.#busy.get(key) ?? 0) + 1);
  }

  /** An attempt to the destination has ended its request. */
  leave(key: string): void {
    const left = (this.#busy.get(key) ?? 1) - 1;
    if (left === 0) this.#busy.delete(key);
    else this.#busy.set(key, left);
  }

  /** What the destination has claimed ahead is mostly running: worth claiming for it again. */
  wantsMore(key: string): boolean {
    const held = (this.#busy.get(key) ?? 0) + (this.#ahead.get(key)?.length ?? 0);
    return held <= (AHEAD_SHARES + 0.5) * this.perDestination;
  }
}
