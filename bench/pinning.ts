/**
 * Cores for the benchmark (docs/performance.md#pinned-cores): the load generator on one core,
 * the server under test and every PostgreSQL process on the others, with `taskset` (util-linux),
 * for the bare baseline and Chipin alike. On 2 cores shared by all three, a throughput ratio
 * measures the scheduler as much as the code; pinned, autocannon cannot take the server's core.
 *
 * Also reads the CPU time of the PostgreSQL server (the postmaster and every backend, live or
 * exited) so that a request's cost counts the database's work too.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

export interface Cores {
  /** The load generator's cores, as taskset reads them (`0`). */
  load: string;
  /** The servers' and PostgreSQL's cores (`1`, or `1-3`). */
  server: string;
}

/** The split, or why there is none: fewer than 2 cores, no taskset, or BENCH_PIN=0. */
export function chooseCores(env: string | undefined): Cores | { none: string } {
  if (env?.trim() === '0') return { none: 'BENCH_PIN=0' };
  const n = cpus().length; // the machine's, whatever this process's affinity
  if (n < 2) return { none: `${n} core` };
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
  } catch {
    return { none: 'taskset not found (util-linux)' };
  }
  return { load: '0', server: n === 2 ? '1' : `1-${n - 1}` };
}

/** Sets the affinity of a process and all its threads (`taskset -a -p -c`). */
export function pin(pid: number, cores: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
}

/** The affinity list of a process (`0-1`), to put it back afterwards. */
export function affinityOf(pid: number): string {
  const out = execFileSync('taskset', ['-p', '-c', String(pid)], { encoding: 'utf8' });
  return out.slice(out.lastIndexOf(':') + 1).trim();
}

interface ProcStat {
  ppid: number;
  /** utime + stime, clock ticks. */
  own: number;
  /** cutime + cstime: children waited for, clock ticks. */
  reaped: number;
}

function procStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
    return { ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined;
  }
}

/** A process's command name (/proc/<pid>/comm). */
function commOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** A process's command line, its arguments joined by spaces (PostgreSQL's backends show their database there). */
function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** The live children of a process, from /proc. */
function childrenOf(ppid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    if (procStat(Number(name))?.ppid === ppid) found.push(Number(name));
  }
  return found;
}

/**
 * The PostgreSQL server behind a backend: the postmaster is its parent. `backendPid` is what
 * `SELECT pg_backend_pid()` answers on a connection to it (same machine only).
 */
export class PostgresServer {
  readonly postmaster: number;
  #saved = new Map<number, string>();

  constructor(backendPid: number) {
    const stat = procStat(backendPid);
    // A server elsewhere answers with a pid of its own machine: never take a local process for it.
    if (!stat || commOf(backendPid) !== 'postgres' || commOf(stat.ppid) !== 'postgres') {
      throw new Error(`process ${backendPid} is not a PostgreSQL backend of this machine: BENCH_DATABASE_URL must name a local server`);
    }
    this.postmaster = stat.ppid;
  }

  /** The postmaster and its live children (backends, background workers). */
  processes(): number[] {
    return [this.postmaster, ...childrenOf(this.postmaster)];
  }

  /**
   * CPU time of the whole server so far, in ms: the postmaster's own, its exited children's
   * (the postmaster waits for every backend, so their time is in its cutime/cstime), and every
   * live child's own.
   */
  cpuMs(): number {
    const pm = procStat(this.postmaster);
    if (!pm) return 0;
    let ticks = pm.own + pm.reaped;
    for (const pid of childrenOf(this.postmaster)) ticks += procStat(pid)?.own ?? 0;
    return ticks * 10; // USER_HZ is 100 on Linux
  }

  /**
   * CPU time so far, in ms, of the live backends of the given databases and of the server's shared
   * writers (checkpointer, background writer, WAL writer): on a machine where other databases of
   * the same server are busy (tests, another benchmark), what one database's work costs without
   * theirs. Exited backends are not counted (their time is the postmaster's, all databases mixed):
   * keep the connections open across the measured window.
   */
  cpuMsOf(databases: string[]): number {
    let ticks = 0;
    for (const pid of childrenOf(this.postmaster)) {
      const title = cmdlineOf(pid);
      const ours = / (checkpointer|background writer|walwriter)\b/.test(title) || databases.some((d) => title.includes(` ${d} `));
      if (ours) ticks += procStat(pid)?.own ?? 0;
    }
    return ticks * 10;
  }

  /** Pins the server: new backends are forked by the postmaster and inherit its affinity. */
  pin(cores: string): void {
    for (const pid of this.processes()) {
      try {
        if (!this.#saved.has(pid)) this.#saved.set(pid, affinityOf(pid));
        pin(pid, cores);
      } catch (err) {
        // A backend that exited between the listing and taskset (a connection closing): nothing to pin.
        if (commOf(pid) === 'postgres') throw err;
      }
    }
  }

  /** Gives every process pinned here (and the backends forked since) back the postmaster's former cores. */
  restore(): void {
    const original = this.#saved.get(this.postmaster);
    if (original === undefined) return;
    for (const pid of this.processes()) {
      try {
        pin(pid, this.#saved.get(pid) ?? original);
      } catch {
        /* exited meanwhile */
      }
    }
    this.#saved.clear();
  }
}

/** The cores of a taskset list: `1-3,5` is 1, 2, 3, 5. */
export function coreList(cores: string): number[] {
  const list: number[] = [];
  for (const part of cores.split(',')) {
    const [a, b] = part.split('-').map(Number);
    for (let c = a!; c <= (b ?? a!); c++) list.push(c);
  }
  return list;
}

/** Busy time of given cores (ms, everything but idle and iowait) from /proc/stat's per-CPU lines. */
export function coresBusyMs(cores: string): number | undefined {
  const wanted = new Set(coreList(cores));
  try {
    let busy = 0;
    for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
      const m = /^cpu(\d+)\s+(.*)$/.exec(line);
      if (!m || !wanted.has(Number(m[1]))) continue;
      const t = m[2]!.trim().split(/\s+/).map(Number);
      busy += t[0]! + t[1]! + t[2]! + t[5]! + t[6]! + t[7]!;
    }
    return busy * 10;
  } catch {
    return undefined;
  }
}
