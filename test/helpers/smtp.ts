import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP listener on 127.0.0.1 (no TLS, no auth), keeping what it receives. */
export async function smtpListener(extra: Partial<SMTPServerOptions> = {}) {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
    ...extra,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The decoded text of a received message (quoted-printable soft breaks and escapes undone). */
export function decoded(raw: string): string {
  const qp = raw.replace(/=\r?\n/g, '').replace(/(?:=[0-9A-F]{2})+/g, (m) => Buffer.from(m.replace(/=/g, ''), 'hex').toString('utf8'));
  return qp.replace(/\r\n/g, '\n');
}
