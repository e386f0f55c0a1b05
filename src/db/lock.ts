import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, unlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';

/** The embedded database is held by another live process. */
export class DatabaseBusyError extends Error {
  constructor(
    readonly dataDir: string,
    /** The holder's pid as its pid file says, when it could be read. */
    readonly pid: number | undefined,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by a running Chipin process${pid === undefined ? '' : ` (pid ${pid})`}. ` +
        'Stop it first, or run Chipin on PostgreSQL (DATABASE_URL) to use the CLI while the server runs. Nothing was changed.',
    );
  }
}

/**
 * The lock's name. On Linux an abstract-namespace Unix socket (leading NUL): it has no file, so
 * nothing is left behind to go stale. Elsewhere a socket file in the data directory.
 */
function lockAddress(dataDir: string): string {
  const hash = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 40);
  return process.platform === 'linux' ? `\0chipin-db-${hash}` : join(dataDir, 'chipin.lock.sock');
}

function listen(server: Server, path: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const onError = (err: NodeJS.ErrnoException) => resolve(err);
    server.once('error', onError);
    server.listen({ path, exclusive: true }, () => {
      server.off('error', onError);
      resolve(undefined);
    });
  });
}

/** Whether something still accepts on a socket file (non-Linux only: a dead holder leaves its file). */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * PGlite's data directory must have a single writer: a second process opening it would corrupt
 * it. The lock is a listening Unix socket bound to a name derived from the directory: binding is
 * atomic (EADDRINUSE while a live process holds it), and the kernel closes a process's sockets the
 * moment it dies, before it is reaped, so a restart right after a crash (SIGKILL, OOM) always
 * gets the lock. A pid check (`kill(pid, 0)`) would not: it succeeds on a zombie.
 *
 * `chipin.pid` is written for people and for the refusal's message only; it decides nothing.
 *
 * Limit: an abstract socket is scoped to the network namespace. Two containers with separate
 * network namespaces sharing one data volume do not see each other's lock: give each its own
 * DATA_DIR, or run on PostgreSQL.
 *
 * Returns the release function.
 */
export async function lockDataDir(dataDir: string): Promise<() => void> {
  mkdirSync(dataDir, { recursive: true });
  const pidFile = join(dataDir, 'chipin.pid');
  const address = lockAddress(dataDir);
  const server = createServer((socket) => socket.destroy());
  let err = await listen(server, address);
  if (err?.code === 'EADDRINUSE' && process.platform !== 'linux' && !(await answers(address))) {
    // A socket file left by a dead holder (only outside Linux, where the name is a file).
    try {
      unlinkSync(address);
    } catch {
      /* someone else cleaned it */
    }
    err = await listen(server, address);
  }
  if (err) {
    if (err.code === 'EADDRINUSE') throw new DatabaseBusyError(dataDir, readPid(pidFile));
    throw err;
  }
  // The lock must not keep the process alive on its own.
  server.unref();
  writeFileSync(pidFile, String(process.pid), { mode: 0o600 });
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // The pid file first: once the socket closes, another process may take the lock and write its own.
    if (readPid(pidFile) === process.pid) {
      try {
        unlinkSync(pidFile);
      } catch {
        /* already gone */
      }
    }
    server.close();
  };
}
