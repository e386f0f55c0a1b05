/**
 * Whether this process takes new requests from the balancer (docs/deployment.md#draining):
 * `/readyz` answers 503 once a shutdown began, while the process still serves what reaches it, so
 * that the balancer's health check takes it out of the rotation before the listener closes.
 * Whether the database answers is not part of it: a process that cannot reach the database still
 * answers every request itself, 503 with Retry-After, which a client can act on; marking every
 * process down at once would leave clients the balancer's own answer instead.
 */
export class Readiness {
  #draining = false;

  get draining(): boolean {
    return this.#draining;
  }

  /** Fails readiness from now on, then waits `ms` for the balancer's checks to see it. */
  async drain(ms: number): Promise<void> {
    this.#draining = true;
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  }
}
