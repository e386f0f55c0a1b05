import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';

/**
 * Who holds a lease across processes (a purchase's money claim: docs/money-operations.md#one-money-operation-at-a-time),
 * so that a holder whose process is gone is known at once instead of when its lease lapses.
 *
 * A holder is `<namespace>/<pid>/<start>`: the Linux boot and pid namespace the process runs in,
 * its pid, and its start time in clock ticks since boot (which tells a pid reused by another
 * process from the holder). Another process can judge such a holder only from inside the same
 * namespace, where the pid means the same process; anywhere else (another machine, another
 * container, not Linux) the holder is unknown and only its lease says when it is gone.
 */
export interface ProcessIdentity {
  /** This process, as its claims name it. */
  readonly holder: string;
  /** False when the holder's process is certainly gone (exited, or killed and not yet reaped); true when alive or unknown. */
  mayBeAlive(holder: string): boolean;
}

/** The start time of `pid` (field 22 of /proc/<pid>/stat), or undefined when no such process lives (a zombie counts as gone). */
function startTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: the fields after it are split on the last ')'.
  const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // after[0] is field 3 (state), so field 22 (starttime) is after[19].
  if (after[0] === 'Z' || after[0] === 'X') return undefined;
  return after[19];
}

function linuxNamespace(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidNs = readlinkSync('/proc/self/ns/pid').replace(/\D/g, '');
    return `${boot}:${pidNs}`;
  } catch {
    return undefined;
  }
}

/**
 * The identity of the process `pid` (this one unless told: another is for tests that kill one),
 * read once: on Linux its namespace, pid and start time; elsewhere a random name nobody can judge.
 */
export function processIdentity(pid = process.pid): ProcessIdentity {
  const namespace = linuxNamespace();
  const start = namespace && startTime(pid);
  if (!namespace || !start) {
    return { holder: `unknown/${randomUUID()}`, mayBeAlive: () => true };
  }
  const holder = `${namespace}/${pid}/${start}`;
  return {
    holder,
    mayBeAlive(other: string): boolean {
      const [ns, pid, started] = other.split('/');
      if (ns !== namespace || !pid || !/^\d+$/.test(pid)) return true;
      return startTime(Number(pid)) === started;
    },
  };
}
