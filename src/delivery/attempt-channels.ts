import { performance } from 'node:perf_hooks';
import { isEmailAddress } from '../domain/email.ts';
import type { Mailer } from '../messaging/mailer.ts';
import type { AddressPolicy } from '../outbound/addresses.ts';
import type { AttemptRequest } from './attempt-request.ts';
import { postJson, type HttpAttempt } from './http-sender.ts';
import { verdictOf } from './policy.ts';
import type { AttemptRecord } from './delivery-queue-repository.ts';
import { unverifiedPayload } from './jwt.ts';

/** What sending came to, whatever the channel. */
export interface Sent extends HttpAttempt {
  /** The channel accepted it (a 2xx; the mail server took it). */
  delivered: boolean;
  mail?: AttemptRecord['mail'];
}

/** An HTTP delivery: POSTed through the outbound client, delivered on a 2xx. */
export async function postRequest(r: AttemptRequest, opts: { timeoutMs: number; policy: AddressPolicy; signal: AbortSignal }): Promise<Sent> {
  const res = await postJson(r.url, r.body, r.headers, opts);
  return { ...res, delivered: !res.interrupted && verdictOf(res.statusCode) === 'succeeded' };
}

/** A `mailto:` notification: the same JSON body, as the text of an e-mail (subject: `title`, then the reference). */
export async function mailNotification(url: string, body: string, mailer: Mailer | undefined, timeoutMs: number, title = 'Payment notification'): Promise<Sent> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const to = mailtoAddress(url);
  if (!to) return { delivered: false, error: 'invalid mailto: address', durationMs: 0 };
  let reference = '';
  try {
    const parsed = JSON.parse(body) as { reference?: unknown; signature?: unknown };
    // An error notification carries its body as a JWT's claims (src/delivery/error-notification.ts).
    const claims = parsed.reference === undefined && typeof parsed.signature === 'string' ? unverifiedPayload(parsed.signature) : parsed;
    reference = String(claims?.reference ?? '');
  } catch {
    /* the body is ours: always JSON */
  }
  const subject = reference ? `${title} ${reference}` : title;
  if (!mailer) return { delivered: false, error: 'no mailer configured', durationMs: 0 };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ accepted: false; error: string; messageId?: string }>((resolve) => {
    timer = setTimeout(() => resolve({ accepted: false, error: `timed out after ${timeoutMs} ms` }), timeoutMs);
  });
  const result = await Promise.race([mailer.send({ to, subject, text: body }), late]).finally(() => clearTimeout(timer));
  const error = result.accepted ? null : (result.error ?? 'not accepted');
  return {
    delivered: result.accepted,
    ...(error ? { error } : {}),
    durationMs: elapsed(),
    mail: { recipient: to, subject, body, accepted: result.accepted, error, providerId: result.messageId ?? null },
  };
}

/** The single address of a `mailto:` URL, or undefined. */
export function mailtoAddress(url: string): string | undefined {
  if (!url.toLowerCase().startsWith('mailto:')) return undefined;
  let address: string;
  try {
    address = decodeURIComponent(url.slice('mailto:'.length).split('?')[0]!).trim();
  } catch {
    return undefined;
  }
  return isEmailAddress(address) ? address : undefined;
}
