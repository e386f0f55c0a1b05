/**
 * deploy/haproxy/haproxy.cfg as Debian's HAProxy runs it (docs/deployment.md#draining): the file
 * is valid, and when no Chipin process can take a request HAProxy's own answer is Chipin's JSON
 * 503 with Retry-After, as a process's own answer is, not its HTML page. The config's ports are
 * and its Chipin servers are moved to free loopback ports, so every server is down. Skipped, with a notice,
 * without `haproxy` (.ci/run installs it).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../process/harness.ts';

const HAPROXY = spawnSync('haproxy', ['-v'], { encoding: 'utf8' }).status === 0;
if (!HAPROXY) console.info('deploy/haproxy/haproxy.cfg checks skipped: no haproxy (apt-get install haproxy)');

const dir = mkdtempSync(join(tmpdir(), 'chipin-haproxy-'));
let proc: ChildProcess | undefined;
afterAll(() => {
  proc?.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(HAPROXY)('the reference HAProxy configuration', () => {
  it("answers Chipin's JSON 503 with Retry-After when no process can take the request, on any path", async () => {
    let cfg = readFileSync(new URL('../../deploy/haproxy/haproxy.cfg', import.meta.url), 'utf8').replace(
      /^ {4}stats socket .*$/m,
      `    stats socket ${dir}/admin.sock mode 600 level admin`,
    );
    const ports = new Map<string, number>();
    for (const bound of cfg.matchAll(/bind 127\.0\.0\.1:(\d+)/g)) ports.set(bound[1]!, await freePort());
    cfg = cfg.replace(/bind 127\.0\.0\.1:(\d+)/g, (_m, p: string) => `bind 127.0.0.1:${ports.get(p)}`);
    // Chipin's servers on ports nothing listens on, whatever runs here (the topology's own processes).
    for (const server of cfg.matchAll(/^( +server chipin\d+ 127\.0\.0\.1:)(\d+)/gm)) cfg = cfg.replace(server[0], `${server[1]}${await freePort()}`);
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(file, cfg);
    const check = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);

    proc = spawn('haproxy', ['-db', '-f', file], { stdio: 'ignore' });
    const http = ports.get('7000')!;
    let res: Response | undefined;
    for (let i = 0; i < 100 && !res; i++) {
      res = await fetch(`http://127.0.0.1:${http}/api/merchants/v1/purchases`, { method: 'POST', body: '{}' }).catch(() => undefined);
      if (!res) await new Promise((r) => setTimeout(r, 100));
    }
    expect(res, 'HAProxy did not answer within 10 s').toBeDefined();
    expect(res!.status).toBe(503);
    expect(res!.headers.get('retry-after')).toBe('2');
    expect(res!.headers.get('content-type')).toBe('application/json');
    const body = (await res!.json()) as { error: { code: string; app_error: string; message: string } };
    expect(body.error).toMatchObject({ code: 'service_unavailable', app_error: 'service_unavailable' });
    expect(body.error.message).toMatch(/retry/);
  });
});
