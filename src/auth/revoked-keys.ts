import { ACCESS_TOKEN_TTL_SECONDS } from './access-tokens.ts';

/** How often every process re-reads revocations: the bound on "revoked key stops working". */
const REVOCATION_REFRESH_MS = 2_000;

/**
 * The API keys revoked recently enough that tokens issued to them may still be unexpired.
 * Kept in memory and refreshed from the database every {@link REVOCATION_REFRESH_MS}, so the
 * bearer check stays off the database while a revocation made by any process (or the CLI)
 * takes effect everywhere within one refresh. `recentlyRevoked` reads them: the API keys'
 * repository (accounts/api-key-repository.ts), handed in by the composition root, since accounts/
 * sits above auth/ and imports it (docs/architecture.md, "Layers").
 */
export class RevokedKeys {
  #keys = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly recentlyRevoked: (withinSeconds: number) => Promise<string[]>,
    private readonly onError: (err: unknown) => void,
  ) {}

  has(apiKey: string): boolean {
    return this.#keys.has(apiKey);
  }

  /** A key older than a token's lifetime has no live tokens left, so the set stays small. */
  async refresh(): Promise<void> {
    this.#keys = new Set(await this.recentlyRevoked(ACCESS_TOKEN_TTL_SECONDS + 60));
  }

  /** A timer, not a durable job: each process refreshes its own copy (docs/jobs-and-clock.md#periodic-work-that-is-not-a-job). */
  start(): void {
    this.#timer ??= setInterval(() => {
      // On a failed refresh the last known set stays in force; the error is reported.
      this.refresh().catch(this.onError);
    }, REVOCATION_REFRESH_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
