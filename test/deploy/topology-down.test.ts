import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * deploy/topology/down.sh signals only processes the topology started (docs/deployment.md#reference-topology-and-failover):
 * a pid file left behind by a drill or a crash may name a process id the system has given to
 * something else since. Plain processes (`sleep`) stand in for the topology's, no PostgreSQL.
 */
const SCRIPT = fileURLToPath(new URL('../../deploy/topology/down.sh', import.meta.url));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function sleeper(options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ChildProcess {
  const c = spawn('sleep', ['60'], { stdio: 'ignore', ...options });
  children.push(c);
  return c;
}
const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;
const exited = (c: ChildProcess) => new Promise<void>((resolve) => (alive(c) ? c.once('exit', () => resolve()) : resolve()));

describe('down.sh', () => {
  it("stops the topology's processes and leaves alone a process a stale pid file names", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chipin-topology-'));
    mkdirSync(join(dir, 'run'));
    mkdirSync(join(dir, 'node1'));
    // A Chipin process (its DATA_DIR under the topology), a postmaster (running in its data
    // directory), a Patroni supervisor (its environment names the topology), and a process of
    // someone else whose id a stale etcd pid file names.
    const chipin = sleeper({ env: { ...process.env, DATA_DIR: join(dir, 'chipin1') } });
    const supervisor = sleeper({ env: { ...process.env, CHIPIN_TOPOLOGY_DIR: dir } });
    const postmaster = sleeper({ cwd: join(dir, 'node1') });
    const stranger = sleeper();
    writeFileSync(join(dir, 'run', 'chipin1.pid'), `${chipin.pid}\n`);
    writeFileSync(join(dir, 'node1', 'postmaster.pid'), `${postmaster.pid}\n${join(dir, 'node1')}\n`);
    writeFileSync(join(dir, 'run', 'supervise-node1.pid'), `${supervisor.pid}\n`);
    writeFileSync(join(dir, 'run', 'supervise'), '');
    writeFileSync(join(dir, 'run', 'etcd2.pid'), `${stranger.pid}\n`);

    // Run without blocking this process: it reaps its children as they die (a zombie still answers kill -0).
    const r = await new Promise<{ status: number; stderr: string }>((resolve) =>
      execFile('bash', [SCRIPT], { env: { ...process.env, CHIPIN_TOPOLOGY_DIR: dir }, timeout: 60_000 }, (err, _out, stderr) =>
        resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
      ),
    );
    try {
      expect(r.status, r.stderr).toBe(0);
      await Promise.all([exited(chipin), exited(postmaster), exited(supervisor)]);
      expect(alive(chipin)).toBe(false);
      expect(alive(supervisor)).toBe(false);
      expect(alive(postmaster)).toBe(false);
      expect(alive(stranger)).toBe(true);
      expect(r.stderr).toContain(`not stopping process ${stranger.pid} named by ${join(dir, 'run', 'etcd2.pid')}: it is not one the topology started`);
      expect(existsSync(dir)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
