/**
 * An error as a message fit to store in `outbound_messages.error` and show in the sandbox inbox:
 * one line, bounded, with the low-level cause when there is one ("fetch failed: connect
 * ECONNREFUSED 127.0.0.1:9").
 */
export function errorText(err: unknown, max = 500): string {
  let message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error ? (err as { cause?: unknown }).cause : undefined;
  if (cause instanceof Error && cause.message && !message.includes(cause.message)) message += `: ${cause.message}`;
  const flat = message.replace(/\s+/g, ' ').trim() || 'unknown error';
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}
