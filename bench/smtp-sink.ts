import { SMTPServer } from 'smtp-server';

/** An SMTP server on loopback that takes every message, for the benches to count where mail lands. */
export interface SmtpSink {
  port: number;
  /** The most sessions that were open at once. */
  maxSessions(): number;
  close(): Promise<void>;
}

export async function startSmtpSink(options: {
  /** Each message as it ends: its raw text (latin1) when `keepBody`, else an empty string. */
  onMessage: (raw: string) => void;
  /** Read the messages' text (a sink that only counts does not pay for it). */
  keepBody: boolean;
  /** While it says so, every MAIL FROM is answered 451 (a server refusing for a while). */
  refusing?: () => boolean;
}): Promise<SmtpSink> {
  const { onMessage, keepBody, refusing } = options;
  let sessions = 0;
  let maxSessions = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    // No reverse DNS of each client: the sink must not be what a drain waits for.
    disableReverseLookup: true,
    logger: false,
    onConnect(_session, callback) {
      sessions += 1;
      maxSessions = Math.max(maxSessions, sessions);
      callback();
    },
    onClose() {
      sessions -= 1;
    },
    onMailFrom(_address, _session, callback) {
      if (refusing?.()) {
        callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        return;
      }
      callback();
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (keepBody) chunks.push(chunk);
      });
      stream.on('end', () => {
        onMessage(keepBody ? Buffer.concat(chunks).toString('latin1') : '');
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('SMTP sink not on TCP');
  return {
    port: address.port,
    maxSessions: () => maxSessions,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The receipt number a payment or transfer e-mail's PDF is named after, as the ledger writes it. */
export function attachedReceiptNumber(raw: string): string {
  // The attachment is named as the download is, in lower case (recibo-rc0001-00000010.pdf).
  return /filename="?recibo-([^";\s]+)\.pdf/.exec(raw)?.[1]?.toUpperCase() ?? '?';
}
