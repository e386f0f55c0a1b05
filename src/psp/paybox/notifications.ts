import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NotificationResult } from '../connector.ts';

/**
 * Paybox Direct answers every operation in the same HTTPS exchange and sends no notification of
 * its own. The one call it makes to Chipin is the 3-D Secure RemoteMPI's server-to-server return
 * (URLHttpDirect, "PAYBOX RemoteMPI" guide referenced by the Direct manual): a GET whose query
 * string carries the session id Chipin gave (IdSession), the authentication's id (ID3D) and its outcome.
 * Paybox signs that return with its RSA key (a Sign field checked against Paybox's published
 * public key), which this connector does not check yet (docs/psp/paybox.md); Chipin signs its
 * own IdSession instead: `<reference>.<HMAC-SHA256 of the
 * reference under a key derived from the account's CLE>` (first 32 hex digits). A callback
 * whose IdSession does not carry Chipin's signature is `bad_signature`; there is no timestamp,
 * hence no `stale` (an ID3D can only be used once, with this account's credentials).
 */
export function signedSession(reference: string, cle: string): string {
  return `${reference}.${sessionMac(reference, cle)}`;
}

function sessionMac(reference: string, cle: string): string {
  return createHmac('sha256', `chipin-paybox-session\u0000${cle}`).update(reference, 'utf8').digest('hex').slice(0, 32);
}

/** The reference a signed IdSession names, or undefined when the signature does not hold. */
export function verifySession(idSession: string, cle: string): string | undefined {
  const dot = idSession.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const reference = idSession.slice(0, dot);
  const given = Buffer.from(idSession.slice(dot + 1), 'utf8');
  const expected = Buffer.from(sessionMac(reference, cle), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected) ? reference : undefined;
}

/** What the RemoteMPI return tells: the session and whether the shopper was authenticated (with the ID3D to authorise with). */
export interface MpiReturn {
  idSession: string;
  id3d: string;
  authenticated: boolean;
}

/**
 * Reads the RemoteMPI return (the same fields in the server-to-server call's query string and in
 * the browser's POST to URLRetour): IdSession, ID3D, 3DENROLLED, 3DSTATUS, StatusPBX. The
 * authentication went through when there is an ID3D, the card is not enrolled (3DENROLLED=N) or
 * the issuer authenticated the shopper (3DSTATUS Y, or A: attempted), and StatusPBX, when
 * present, is "Autorisation à faire" (authorisation to do) rather than an "Erreur …".
 */
export function parseMpiReturn(rawBody: string): MpiReturn | undefined {
  const q = new URLSearchParams(rawBody.replace(/^\?/, ''));
  const idSession = q.get('IdSession') ?? '';
  if (!idSession) return undefined;
  // Letters only: Paybox writes ISO-8859-1, so the à may arrive as anything.
  const statusPbx = (q.get('StatusPBX') ?? '')
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
  const id3d = q.get('ID3D') ?? '';
  const enrolled = q.get('3DENROLLED') ?? '';
  const three = q.get('3DSTATUS') ?? '';
  const authenticated = id3d !== '' && (enrolled === 'N' || three === 'Y' || three === 'A') && (statusPbx === '' || statusPbx.startsWith('autorisation'));
  return { idSession, id3d, authenticated };
}

export function verifyMpiReturn(rawBody: string, cle: string): NotificationResult {
  const r = parseMpiReturn(rawBody);
  if (!r) return { ok: false, reason: 'malformed' };
  const reference = verifySession(r.idSession, cle);
  if (!reference) return { ok: false, reason: 'bad_signature' };
  return {
    ok: true,
    transactionId: reference,
    status: r.authenticated ? 'requires_action' : 'declined',
    event: { kind: 'remote_mpi', idSession: r.idSession, id3d: r.id3d, authenticated: r.authenticated },
  };
}
