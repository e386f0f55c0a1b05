/**
 * Child processes of the benchmark: spawned with an IPC channel (see orphan-guard.mjs), tracked
 * here, and all stopped by {@link stopAll} at the end, on error and on SIGINT/SIGTERM.
 * Every wait is bounded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Plain JavaScript: preloaded into the bundle (no tsx) as into the TypeScript sources.
const GUARD = resolve(ROOT, 'bench/orphan-guard.mjs');
export const LOOPBACK = '127.0.0.1';

export interface Child {
  name: string;
  proc: ChildProcess;
  /** Last lines the child wrote to stderr, for error messages. */
  stderrTail(): string;
  exited: Promise<number | null>;
}

const children = new Set<Child>();

/** Refuses a database URL (named by its variable) whose server is not on this machine's loopback: a benchmark makes and drops databases there. */
export function requireLoopback(url: string, variable: string): void {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) throw new Error(`${variable} must name a loopback server, got ${host}`);
}

/** An integer setting of a benchmark from the environment, refused with its name and range when out of it. */
export function intEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** Busy CPU time (all cores, everything but idle and iowait, ms) of the whole machine so far, from /proc/stat; Linux only. */
export function machineBusyMs(): number | undefined {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    const busy = cpu[0]! + cpu[1]! + cpu[2]! + cpu[5]! + cpu[6]! + cpu[7]!;
    return busy * 10;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc/<pid>/stat; undefined off
 * Linux. Fields 14 and 15 after the command name, in clock ticks (USER_HZ, 100 on Linux).
 */
export function cpuTimeMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** A TCP port free on the loopback interface right now. */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', fail);
    srv.listen(0, LOOPBACK, () => {
      const addr = srv.address();
      srv.close(() => (addr && typeof addr === 'object' ? ok(addr.port) : fail(new Error('no port'))));
    });
  });
}

/**
 * Runs a TypeScript entry point as `node [nodeArgs] --import tsx --import orphan-guard <script> ...`:
 * one process per server (the `tsx` CLI would add a wrapper process in between).
 * stdout goes to /dev/null (the access log); stderr is kept in a small ring buffer.
 */
export function spawnTs(name: string, script: string, args: string[], env: Record<string, string | undefined>, nodeArgs: string[] = []): Child {
  return spawnNode(name, [...nodeArgs, '--import', 'tsx', '--import', GUARD, script, ...args], env);
}

/** Starts Chipin from its bundle (`npm run build`: dist/main.mjs, docs/deployment.md#the-bundle), as production runs it. */
export function spawnBundle(name: string, args: string[], env: Record<string, string | undefined>): Child {
  return spawnNode(name, ['--enable-source-maps', '--import', GUARD, 'dist/main.mjs', ...args], env);
}

function spawnNode(name: string, argv: string[], env: Record<string, string | undefined>): Child {
  const proc = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const tail: string[] = [];
  proc.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    tail.push(chunk);
    while (tail.length > 50) tail.shift();
  });
  const exited = new Promise<number | null>((ok) => {
    proc.once('exit', (code) => ok(code));
    proc.once('error', () => ok(-1));
  });
  const child: Child = { name, proc, stderrTail: () => tail.join('').slice(-4000), exited };
  children.add(child);
  void exited.then(() => children.delete(child));
  return child;
}

/** Runs a TypeScript CLI command to completion (bounded) and returns its stdout. */
export async function runTs(script: string, args: string[], env: Record<string, string | undefined>, timeoutMs = 60_000): Promise<string> {
  const proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  let out = '';
  let err = '';
  proc.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const code = await new Promise<number | null>((ok) => {
    proc.once('exit', (c) => ok(c));
    proc.once('error', () => ok(-1));
  });
  if (code !== 0) throw new Error(`${script} ${args.join(' ')} failed (exit ${code}):\n${err.slice(-2000)}`);
  return out;
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** Polls `url` until it answers 200, the child exits, or `timeoutMs` passes. */
export async function waitForOk(child: Child, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void child.exited.then((c) => (exitCode = c));
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`${child.name} exited (code ${exitCode}) before ${url} answered:\n${child.stderrTail()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(200);
  }
  throw new Error(`${child.name}: ${url} did not answer 200 within ${timeoutMs / 1000} s (last: ${last}):\n${child.stderrTail()}`);
}

/** SIGTERM (graceful: lets a --cpu-prof profile be written), then SIGKILL after `graceMs`. */
export async function stop(child: Child, graceMs = 5_000): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...children].map((c) => stop(c)));
}

/** Last resort when the benchmark process exits without having awaited {@link stopAll}. */
export function killAllSync(): void {
  for (const c of children) {
    if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  }
}
