import type { Sql } from '../db/database.ts';
import { recordSuccesses, type SuccessRecord } from './delivery-queue-repository.ts';

interface Waiting extends SuccessRecord {
  resolve(applied: boolean): void;
  reject(err: unknown): void;
}

/**
 * Records successful attempts in groups, as PostgreSQL groups commits: the first success is
 * written at once, and those that end while a write is under way go together in the next one
 * (up to `max`). Nothing waits for a timer, so a quiet worker records each success at once;
 * in a burst, one statement and one commit record a slot's worth of deliveries instead of
 * one each (docs/performance.md). A success not yet written when the process dies is sent again
 * after its lease: at-least-once, as every delivery.
 */
export class SuccessRecorder {
  readonly #waiting: Waiting[] = [];
  #writing = false;

  constructor(
    private readonly db: Sql,
    private readonly max = 64,
  ) {}

  /** Resolves, once written, to whether the outcome was applied (recordAttempt's answer). */
  record(r: SuccessRecord): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ ...r, resolve, reject });
      if (!this.#writing) void this.#write();
    });
  }

  async #write(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#waiting.length > 0) {
        const group = this.#takeGroup();
        try {
          const applied = await recordSuccesses(this.db, group);
          group.forEach((w, i) => w.resolve(applied[i]!));
        } catch (err) {
          for (const w of group) w.reject(err);
        }
      }
    } finally {
      this.#writing = false;
    }
  }

  /** Up to `max` waiting records, one per delivery (a second record of one waits for the next group). */
  #takeGroup(): Waiting[] {
    const group: Waiting[] = [];
    const ids = new Set<string>();
    for (let i = 0; i < this.#waiting.length && group.length < this.max;) {
      const w = this.#waiting[i]!;
      if (ids.has(w.d.id)) {
        i++;
        continue;
      }
      ids.add(w.d.id);
      group.push(w);
      this.#waiting.splice(i, 1);
    }
    return group;
  }
}
