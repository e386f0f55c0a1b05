import { createHmac, createPublicKey, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import type { NotificationResult } from '../connector.ts';

/**
 * Paybox Direct answers every operation in the same HTTPS exchange and sends no notification of
 * its own. The one call it makes to Chipin is the 3-D Secure RemoteMPI's server-to-server return
 * (URLHttpDirect, "PAYBOX RemoteMPI" guide referenced by the Direct manual): a GET whose query
 * string carries the session id Chipin gave (IdSession), the authentication's id (ID3D) and its
 * outcome (3DENROLLED, 3DSTATUS, StatusPBX…), the same fields the shopper's browser posts to
 * URLRetour, so the shopper sees them all.
 *
 * Two signatures hold, both checked (docs/psp/paybox.md#3-d-secure-remotempi):
 * - **Paybox's**: an RSA signature (SHA-1, PKCS #1 v1.5) in the last parameter (`Check`), base64
 *   and URL-encoded, over the parameters before it as `name=value` joined by `&`, each value
 *   URL-decoded, verified with Paybox's public key (the PSP account's `public_key`). It covers
 *   3DSTATUS and the rest: a shopper who failed the authentication cannot claim otherwise (left
 *   unchecked, a forged `3DSTATUS=Y` would authorise the payment).
 * - **Chipin's own** on IdSession: `<reference>.<HMAC-SHA256 of the reference under a key derived
 *   from the account's CLE>` (first 32 hex digits), so that a return Paybox signed for another
 *   account's session (or another merchant's) names no transaction of this one.
 * A return failing either is `bad_signature`. There is no timestamp, hence no `stale`: a return
 * replayed is one Paybox signed for that session, and its ID3D is used once (operation log).
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

/** What an account's `public_key` must be, as a refusal says it. */
export const PAYBOX_PUBLIC_KEY_EXPECTED = 'expected an RSA public key: pubkey.pem as Paybox publishes it (its BEGIN and END lines may stay), or the base64 between them';

/**
 * Paybox's public key from the PSP account's `public_key`: the PEM Paybox publishes (`pubkey.pem`),
 * whole or only its base64, with or without its line breaks and spaces. Undefined when it is not an
 * RSA public key.
 */
export function payboxPublicKey(text: string | undefined): KeyObject | undefined {
  if (!text) return undefined;
  const base64 = text.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return undefined;
  try {
    const key = createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'rsa' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** `%xx` to its byte, every other character as its ISO-8859-1 byte: how Paybox's signed values are read from a query string (no `+` rule). */
function percentBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(text.charCodeAt(i) & 0xff);
  }
  return Buffer.from(bytes);
}

/**
 * The part of a RemoteMPI return Paybox signed (the query string without its last parameter, the
 * signature), when the signature holds under `key`; else undefined. Nothing after the signature
 * is read: anything added to the query becomes "the signature" and fails.
 */
export function payboxSignedPart(rawQuery: string, key: KeyObject): string | undefined {
  const pairs = rawQuery.replace(/^\?/, '').split('&');
  const last = pairs.pop();
  if (pairs.length === 0 || last === undefined) return undefined;
  const eq = last.indexOf('=');
  if (eq <= 0) return undefined;
  const signature = Buffer.from(percentBytes(last.slice(eq + 1)).toString('latin1'), 'base64');
  const parts: Buffer[] = [];
  for (const [i, pair] of pairs.entries()) {
    const at = pair.indexOf('=');
    if (at <= 0) return undefined;
    parts.push(Buffer.from(`${i > 0 ? '&' : ''}${pair.slice(0, at + 1)}`, 'latin1'), percentBytes(pair.slice(at + 1)));
  }
  try {
    return signature.length > 0 && verify('sha1', Buffer.concat(parts), key, signature) ? pairs.join('&') : undefined;
  } catch {
    return undefined;
  }
}

/** What the RemoteMPI return tells: the session and whether the shopper was authenticated (with the ID3D to authorise with). */
export interface MpiReturn {
  idSession: string;
  id3d: string;
  authenticated: boolean;
}

/**
 * Reads the RemoteMPI return's fields (the part Paybox signed): IdSession, ID3D, 3DENROLLED,
 * 3DSTATUS, StatusPBX. The authentication went through when there is an ID3D, the card is not
 * enrolled (3DENROLLED=N) or the issuer authenticated the shopper (3DSTATUS Y, or A: attempted),
 * and StatusPBX, when present, is "Autorisation à faire" (authorisation to do) rather than an
 * "Erreur …" or "Timeout". Trust it only once {@link payboxSignedPart} checked it.
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

/**
 * Verifies a RemoteMPI return: Paybox's signature under `publicKey` (none: nothing is trusted),
 * then Chipin's on IdSession under `cle`. Only the part Paybox signed is read.
 */
export function verifyMpiReturn(rawBody: string, cle: string, publicKey: KeyObject | undefined): NotificationResult {
  const unsigned = parseMpiReturn(rawBody);
  if (!unsigned) return { ok: false, reason: 'malformed' };
  const signed = publicKey && payboxSignedPart(rawBody, publicKey);
  if (!signed) return { ok: false, reason: 'bad_signature' };
  const r = parseMpiReturn(signed);
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
