import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';
import { errorText } from './error-text.ts';

/** One e-mail to one recipient. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/**
 * What became of a send. `accepted` is true only when the mail server (or, in sandbox without
 * SMTP_URL, the recording transport) took the message for this recipient.
 */
interface MailResult {
  accepted: boolean;
  /** Message-ID of the sent message. */
  messageId?: string;
  error?: string;
}

export interface Mailer {
  /** `smtp`: SMTP_URL; `recording`: sandbox without SMTP_URL (kept, not delivered); `none`: production without SMTP_URL. */
  readonly kind: 'smtp' | 'recording' | 'none';
  /** Never throws. */
  send(mail: OutgoingMail): Promise<MailResult>;
  close(): void;
}

export interface MailerOptions {
  /** Connection, greeting, socket-inactivity and DNS timeouts (ms). Default 10 s. */
  timeoutMs?: number;
  /** Deadline of one whole send (ms), however slowly a server answers. Default 30 s. */
  totalTimeoutMs?: number;
}

const NO_SMTP_ERROR = 'no SMTP_URL configured';

function sameAddress(a: unknown, b: string): boolean {
  const address = typeof a === 'string' ? a : (a as { address?: unknown } | null)?.address;
  return typeof address === 'string' && address.trim().toLowerCase() === b.trim().toLowerCase();
}

type Transporter = ReturnType<typeof nodemailer.createTransport>;

class NodemailerMailer implements Mailer {
  constructor(
    readonly kind: 'smtp' | 'recording',
    private readonly transport: Transporter,
    private readonly from: string,
    private readonly totalTimeoutMs: number,
  ) {}

  async send(mail: OutgoingMail): Promise<MailResult> {
    try {
      const info = (await this.transport.sendMail({
        from: this.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html === undefined ? {} : { html: mail.html }),
        signal: AbortSignal.timeout(this.totalTimeoutMs),
      })) as { messageId?: string; accepted?: unknown[]; rejected?: unknown[]; envelope?: { to?: unknown[] } };
      const messageId = typeof info.messageId === 'string' ? info.messageId : undefined;
      if (this.kind === 'recording') {
        // The JSON transport keeps the message without a server: taken when it is addressed to the recipient.
        const taken = (info.envelope?.to ?? []).some((a) => sameAddress(a, mail.to));
        return taken ? { accepted: true, messageId } : { accepted: false, messageId, error: 'recipient missing from the envelope' };
      }
      const accepted = (info.accepted ?? []).some((a) => sameAddress(a, mail.to));
      const rejected = (info.rejected ?? []).some((a) => sameAddress(a, mail.to));
      if (accepted && !rejected) return { accepted: true, messageId };
      return { accepted: false, messageId, error: 'the mail server did not accept the recipient' };
    } catch (err) {
      return { accepted: false, error: errorText(err) };
    }
  }

  close(): void {
    this.transport.close();
  }
}

class NoMailer implements Mailer {
  readonly kind = 'none' as const;
  async send(): Promise<MailResult> {
    return { accepted: false, error: NO_SMTP_ERROR };
  }
  close(): void {}
}

/**
 * The e-mail transport of the configuration: SMTP when SMTP_URL is set; otherwise a recording
 * transport in sandbox (nothing leaves the machine; the sandbox inbox shows the message) and none
 * in production (every send answers not accepted, "no SMTP_URL configured").
 */
export function createMailer(config: Pick<Config, 'env' | 'smtpUrl' | 'mailFrom'>, opts: MailerOptions = {}): Mailer {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const totalTimeoutMs = opts.totalTimeoutMs ?? 30_000;
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport({
      url: config.smtpUrl,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
      // Our messages carry no attachments: never let message content read files or fetch URLs.
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
    });
    return new NodemailerMailer('smtp', transport, config.mailFrom, totalTimeoutMs);
  }
  if (config.env === 'sandbox') {
    const transport = nodemailer.createTransport({ jsonTransport: true, disableFileAccess: true, disableUrlAccess: true });
    return new NodemailerMailer('recording', transport, config.mailFrom, totalTimeoutMs);
  }
  return new NoMailer();
}
