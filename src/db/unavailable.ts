/**
 * Whether an error says the database could not be reached, or went away under a statement (a
 * failover, a restart, a connection cut), rather than that the statement was wrong: the request
 * that met it may be retried (docs/deployment.md#reference-topology-and-failover). A transaction
 * cut this way rolled back, but the request's earlier transactions, or a commit whose answer was
 * lost, may have landed: a retried write carries its Idempotency-Key, whose takeover finds what
 * the first attempt committed (docs/api-conventions.md#idempotency-key).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    // SQLSTATE class 08 (connection exception), the server shutting down or starting
    // (57P01 to 57P03), too many connections (53300), and a write reaching a standby that is not
    // promoted yet (25006).
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300' || code === '25006') return true;
    if (NODE_CODES.has(code)) return true;
  }
  // node-postgres's own messages for a connection that ended or never opened.
  return /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/.test(err.message);
}

const NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
