import { SMTPServer } from 'smtp-server';

/** One e-mail as the SMTP server received it, with the text part decoded. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  text: string;
}

export interface SmtpSink {
  port: number;
  /** Every accepted message, oldest first. */
  inbox: ReceivedMail[];
  /** Answer the next `count` messages with 451 (a temporary failure the sender must retry). */
  refuseNext(count: number): void;
  refusalsLeft(): number;
  /** Connections clients opened so far. */
  connections(): number;
  close(): Promise<void>;
}

/** Quoted-printable is 7-bit text, so `=XX` bytes can be rebuilt through latin1 and read as UTF-8. */
function decodeQuotedPrintable(body: string): string {
  const latin1 = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(latin1, 'latin1').toString('utf8');
}

/** The text of a single-part message (what the mailer sends): headers cut, body decoded. */
function textOf(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const headers = split === -1 ? raw : raw.slice(0, split);
  const body = split === -1 ? '' : raw.slice(split + 4);
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === 'base64')
    return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

/**
 * A real SMTP server on 127.0.0.1 (the `smtp-server` package) that keeps what it receives; on
 * `port` when given (a server coming back where it was), else on a free one.
 */
export async function startSmtpSink(options: { port?: number } = {}): Promise<SmtpSink> {
  const inbox: ReceivedMail[] = [];
  let refusals = 0;
  let connections = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refusals > 0) {
          refusals -= 1;
          callback(Object.assign(new Error('mailbox busy'), { responseCode: 451 }));
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const { mailFrom, rcptTo } = session.envelope;
        inbox.push({
          from: mailFrom === false ? '' : mailFrom.address,
          to: rcptTo.map((recipient) => recipient.address),
          raw,
          text: textOf(raw),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('SMTP server not on TCP');
  return {
    port: address.port,
    inbox,
    refuseNext: (count) => {
      refusals = count;
    },
    refusalsLeft: () => refusals,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
