import type { Database } from '../../src/db/database.ts';

/**
 * Pause points on the real database, to force interleavings of concurrent flows instead of
 * hoping for them. Each flow gets a handle on which every transaction it opens first stops at a
 * gate; a schedule says which flow goes on, until its next transaction (or its end). Races
 * between flows are decided inside transactions (row locks) and by what a flow read or asked
 * the PSP between two of them, so every order of those steps is every interleaving that matters.
 *
 * Flows never stop inside a transaction: PGlite runs one at a time, and a flow stopped inside
 * one would hold up the others for ever.
 */

/** A flow under test: runs on `db` (pausing) and answers whatever it answers. */
export type Flow = (db: Database) => Promise<unknown>;

export interface Run {
  /** The flow that went on at each step. */
  taken: number[];
  /** At each step, the flows that could have gone on (the branching points of the search). */
  choices: number[][];
  /** Each flow's outcome. */
  results: PromiseSettledResult<unknown>[];
}

class Gate {
  done = false;
  #go: (() => void) | undefined;
  #arrived!: Promise<void>;
  #arrive!: () => void;

  constructor() {
    this.#expect();
  }

  #expect(): void {
    this.#arrived = new Promise((resolve) => (this.#arrive = resolve));
  }

  /** The flow's side: stop here until scheduled. */
  async pause(): Promise<void> {
    const go = new Promise<void>((resolve) => (this.#go = resolve));
    this.#arrive();
    await go;
  }

  finish(): void {
    this.done = true;
    this.#arrive();
  }

  /** The scheduler's side: lets the flow run to its next pause point or its end. */
  async step(): Promise<void> {
    const go = this.#go!;
    this.#go = undefined;
    this.#expect();
    go();
    await this.#arrived;
  }

  get arrived(): Promise<void> {
    return this.#arrived;
  }
}

/** `real`, except that each transaction first waits at `gate`. */
function pausing(real: Database, gate: Gate): Database {
  return new Proxy(real, {
    get(target, prop) {
      if (prop === 'transaction') {
        return async <T>(fn: Parameters<Database['transaction']>[0]) => {
          await gate.pause();
          return target.transaction(fn) as Promise<T>;
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Runs `flows` one step at a time: step k goes to `schedule[k]` when that flow can go on, else
 * to the first flow that can (so a prefix of a schedule, then the flows in order).
 */
export async function runInterleaved(real: Database, flows: readonly Flow[], schedule: readonly number[]): Promise<Run> {
  const gates = flows.map(() => new Gate());
  const settled = flows.map(async (flow, i) => {
    const gate = gates[i]!;
    try {
      await gate.pause(); // nothing runs before it is scheduled
      return await flow(pausing(real, gate));
    } finally {
      gate.finish();
    }
  });
  await Promise.all(gates.map((g) => g.arrived));
  const taken: number[] = [];
  const choices: number[][] = [];
  for (;;) {
    const runnable = gates.flatMap((g, i) => (g.done ? [] : [i]));
    if (runnable.length === 0) break;
    const wanted = schedule[taken.length];
    const next = wanted !== undefined && runnable.includes(wanted) ? wanted : runnable[0]!;
    choices.push(runnable);
    taken.push(next);
    await gates[next]!.step();
  }
  return { taken, choices, results: await Promise.allSettled(settled) };
}

/**
 * Every interleaving of the flows `run` starts, each once: a depth-first search over schedules
 * (each run replays a prefix, then branches at every later step where another flow could have
 * gone on). `run` must be deterministic for a given schedule: a fresh purchase each time.
 * Answers how many interleavings ran.
 */
export async function forEachInterleaving(run: (schedule: readonly number[]) => Promise<Run>): Promise<number> {
  const pending: number[][] = [[]];
  let count = 0;
  while (pending.length > 0) {
    const prefix = pending.pop()!;
    const { taken, choices } = await run(prefix);
    count++;
    if (prefix.some((flow, k) => taken[k] !== flow)) throw new Error(`the flows did not replay the schedule ${prefix.join(',')} (took ${taken.join(',')}): not deterministic`);
    for (let k = prefix.length; k < taken.length; k++) {
      for (const other of choices[k]!) if (other !== taken[k]) pending.push([...taken.slice(0, k), other]);
    }
  }
  return count;
}
