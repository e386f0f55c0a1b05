import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * deploy/backup/archive-wal.sh, the archive_command of docs/deployment.md#backup-and-restore:
 * PostgreSQL recycles a WAL segment once the command exits 0, so the archive is only as good as
 * these answers. Plain files, no PostgreSQL (the restore itself is `npm run drill:backup`).
 */
const SCRIPT = fileURLToPath(new URL('../../deploy/backup/archive-wal.sh', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'chipin-archive-wal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const archive = join(dir, 'archive');
mkdirSync(archive);
const NAME = '000000010000000000000003';

function segment(content: string): string {
  const path = join(dir, `pg_wal-${content}`);
  writeFileSync(path, content);
  return path;
}

function archiveWal(path: string, into = archive): { status: number | null; stderr: string } {
  const r = spawnSync('sh', [SCRIPT, path, NAME, into], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

describe('archive-wal.sh', () => {
  it('copies a segment into the archive under its name and exits 0, leaving no partial file', () => {
    expect(archiveWal(segment('first'))).toEqual({ status: 0, stderr: '' });
    expect(readFileSync(join(archive, NAME), 'utf8')).toBe('first');
    expect(readdirSync(archive)).toEqual([NAME]);
  });

  it('exits 0 for the same segment again (PostgreSQL re-archives after a crash)', () => {
    expect(archiveWal(segment('first'))).toEqual({ status: 0, stderr: '' });
    expect(readFileSync(join(archive, NAME), 'utf8')).toBe('first');
  });

  it('refuses a different file of the same name: non-zero, the archived one kept', () => {
    const r = archiveWal(segment('other cluster'));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('refusing to overwrite');
    expect(readFileSync(join(archive, NAME), 'utf8')).toBe('first');
  });

  it('exits non-zero when the archive folder cannot be written, so PostgreSQL keeps the segment', () => {
    const missing = join(dir, 'no-such-folder');
    expect(archiveWal(segment('second'), missing).status).not.toBe(0);
    expect(existsSync(missing)).toBe(false);
  });
});
