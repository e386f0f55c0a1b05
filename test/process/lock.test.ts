/**
 * The embedded database's lock (src/db/lock.ts) against real processes: a holder killed with
 * SIGKILL frees it at once, even while it is still a zombie (not yet reaped by its parent); a live
 * holder keeps every other process out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseBusyError, lockDataDir } from '../../src/db/lock.ts';
import { ROOT } from './harness.ts';

const HOLDER = join(ROOT, 'test/process/fixtures/hold-lock.ts');
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const c of children.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'chipin-lock-'));
  dirs.push(d);
  return d;
}

/**
 * Starts a holder of `dir`'s lock under `sh`, which then `exec`s into `sleep`: the holder's parent
 * never reaps it, so after SIGKILL it stays a zombie for the whole test. Resolves with its pid
 * once it holds the lock.
 */
function holder(dir: string): Promise<number> {
  const script = `${process.execPath} --import tsx ${JSON.stringify(HOLDER)} ${JSON.stringify(dir)} & exec sleep 60`;
  const child = spawn('sh', ['-c', script], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /locked (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('close', () => reject(new Error(`holder exited before locking: ${err}`)));
    setTimeout(() => reject(new Error(`holder did not lock within 20 s: ${err}`)), 20_000).unref();
  });
}

function state(pid: number): string | undefined {
  try {
    return /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

describe('the embedded database lock', () => {
  it('refuses a second process while the holder lives, naming its pid', async () => {
    const dir = dataDir();
    const pid = await holder(dir);
    const err = await lockDataDir(dir).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DatabaseBusyError);
    expect((err as Error).message).toContain(`(pid ${pid})`);
    expect((err as Error).message).toContain('in use by a running Chipin process');
  }, 30_000);

  it.skipIf(process.platform !== 'linux')(
    'is free right after the holder is SIGKILLed, while it is still a zombie',
    async () => {
      const dir = dataDir();
      const pid = await holder(dir);
      process.kill(pid, 'SIGKILL');
      // Wait only for the kernel to finish the kill (the process turns into a zombie: state Z).
      const deadline = Date.now() + 5_000;
      while (state(pid) !== 'Z' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(state(pid), 'the holder is a zombie: its parent has not reaped it').toBe('Z');
      // The thread-group leader shows Z while its other threads may still be tearing down the
      // shared file table (longer on a loaded machine): allow that, bounded. What matters is that
      // the lock is free while the holder is still an unreaped zombie, where a pid check
      // (kill(pid, 0) succeeds on zombies) refused it.
      let release: (() => void) | undefined;
      for (const until = Date.now() + 3_000; !release;) {
        try {
          release = await lockDataDir(dir);
        } catch (err) {
          if (!(err instanceof DatabaseBusyError) || Date.now() > until) throw err;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      expect(state(pid), 'still an unreaped zombie when the lock was taken').toBe('Z');
      expect(readFileSync(join(dir, 'chipin.pid'), 'utf8')).toBe(String(process.pid));
      release();
      expect(existsSync(join(dir, 'chipin.pid'))).toBe(false);
    },
    30_000,
  );

  it('is taken again by the same process after release, and a second lockDataDir in one process is refused', async () => {
    const dir = dataDir();
    const release = await lockDataDir(dir);
    await expect(lockDataDir(dir)).rejects.toBeInstanceOf(DatabaseBusyError);
    release();
    const again = await lockDataDir(dir);
    again();
  });
});
