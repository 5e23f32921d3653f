import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { SettingsReader } from '../settings/reader.js';
import type { SettingsOf } from '../settings/setting.js';
import { SETTINGS } from '../settings/registry.js';
import type { TenantContext } from '../tenancy/tenancy.js';

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** Files sent with the text (a receipt's PDF); the message becomes multipart. */
  attachments?: readonly MailAttachment[];
  /** Extra header fields, e.g. `List-Unsubscribe` (RFC 2369, RFC 8058) on the reminders. */
  headers?: Readonly<Record<string, string>>;
}

export interface Mailer {
  /**
   * Sends with the tenant's mail settings, read fresh, or `settings` when the caller read them
   * with its own (one statement for both: the payment e-mails).
   */
  send(tenant: TenantContext, message: MailMessage, settings?: MailSettings): Promise<void>;
}

/** A mailer that keeps SMTP connections open between messages (the API's). */
export interface PooledMailer extends Mailer {
  /** Closes the connections it keeps. */
  close(): void;
}

/** Messages the development outbox received, newest last (tests and the demo read them). */
export interface Outbox {
  readonly messages: readonly (MailMessage & { from: string; tenantId: number })[];
}

/** The tenant's mail settings (`ini`): a group a caller may read with its own settings. */
export const MAIL_SETTINGS = {
  host: SETTINGS.smtpHost,
  port: SETTINGS.smtpPort,
  user: SETTINGS.smtpUser,
  password: SETTINGS.smtpPassword,
  secure: SETTINGS.smtpSecure,
  from: SETTINGS.mailFrom,
};
export type MailSettings = SettingsOf<typeof MAIL_SETTINGS>;

/** A mail server's connections unused this long are closed: a burst keeps them, a quiet hour does not. */
const IDLE_TRANSPORT_MS = 5_000;

/** A tenant's `mail.smtp.*` settings, or SMTP_URL. */
type SmtpSettings = SMTPTransport.Options | string;

function pooledTransport(settings: SmtpSettings, maxConnections: number): Transporter {
  if (typeof settings !== 'string') {
    return nodemailer.createTransport({ ...settings, pool: true, maxConnections });
  }
  // nodemailer reads its options from the URL's query too.
  const url = new URL(settings);
  url.searchParams.set('pool', 'true');
  url.searchParams.set('maxConnections', String(maxConnections));
  return nodemailer.createTransport(url.toString());
}

/**
 * One transport per mail server and account, kept while it is used: its connections carry many
 * messages, instead of a connection, a greeting and EHLO (and, on real servers, a TLS handshake)
 * for each one. A burst of approvals sends its e-mails at the speed of the work.
 */
function createTransportPool(maxConnections: number) {
  const open = new Map<
    string,
    { transport: Transporter; sending: number; idle: NodeJS.Timeout | undefined }
  >();
  let closed = false;
  const closeOne = (key: string) => {
    const entry = open.get(key);
    if (!entry) return;
    clearTimeout(entry.idle);
    open.delete(key);
    entry.transport.close();
  };
  return {
    /**
     * Sends through the transport of these settings. Its idle clock starts when its last send in
     * flight ends: closing a pooled transport fails the messages still waiting for a connection,
     * and a slow server can keep them waiting longer than IDLE_TRANSPORT_MS.
     */
    async send(settings: SmtpSettings, mail: SMTPTransport.MailOptions): Promise<void> {
      if (closed) {
        // The app is closing: a job still running sends on a connection of its own.
        const transport = nodemailer.createTransport(settings);
        try {
          await transport.sendMail(mail);
        } finally {
          transport.close();
        }
        return;
      }
      // The settings, password included, only as a key of this process's memory.
      const key = JSON.stringify(settings);
      let entry = open.get(key);
      if (!entry) {
        entry = {
          transport: pooledTransport(settings, maxConnections),
          sending: 0,
          idle: undefined,
        };
        open.set(key, entry);
      }
      const current = entry;
      clearTimeout(current.idle);
      current.sending += 1;
      try {
        await current.transport.sendMail(mail);
      } finally {
        current.sending -= 1;
        if (current.sending === 0 && open.get(key) === current) {
          current.idle = setTimeout(() => closeOne(key), IDLE_TRANSPORT_MS);
          current.idle.unref();
        }
      }
    },
    close() {
      closed = true;
      for (const key of [...open.keys()]) closeOne(key);
    },
  };
}

/**
 * nodemailer over SMTP with the tenant's `mail.smtp.*` settings (the ERP's own mail settings,
 * reused), else SMTP_URL; in development without either, an outbox printed to the console so a
 * person trying the demo can read the code. Production without a transport fails the send (the
 * job retries and the failure is logged). With `connectionsPerServer` (the API) the connections
 * to each mail server are kept and reused, at most that many at once; without (the CLI), each
 * message opens its own and closes it.
 */
export function createMailer(options: {
  smtpUrl: string | undefined;
  devOutbox: boolean;
  print: (text: string) => void;
  connectionsPerServer?: number;
  /** Read fresh at each message: a tenant's new mail server applies to the next one. */
  settings: SettingsReader;
}): PooledMailer & Outbox {
  const messages: (MailMessage & { from: string; tenantId: number })[] = [];
  const pool =
    options.connectionsPerServer === undefined
      ? undefined
      : createTransportPool(options.connectionsPerServer);

  async function settingsFor(
    tenant: Pick<TenantContext, 'db' | 'tenantId'>,
    read: MailSettings | undefined,
  ): Promise<{ settings?: SmtpSettings; from: string }> {
    const { host, port, user, password, secure, from } =
      read ?? (await options.settings.read(tenant, MAIL_SETTINGS, 'fresh'));
    if (host) {
      return {
        from,
        settings: {
          host,
          port,
          secure,
          ...(user && { auth: { user, pass: password ?? '' } }),
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 20_000,
        },
      };
    }
    if (options.smtpUrl) return { from, settings: options.smtpUrl };
    return { from };
  }

  return {
    messages,
    async send(tenant, message, read) {
      const { settings, from } = await settingsFor(tenant, read);
      if (!settings) {
        if (!options.devOutbox) {
          throw new Error(
            `No mail transport for tenant ${tenant.tenantId} (mail.smtp.host or SMTP_URL)`,
          );
        }
        messages.push({ ...message, from, tenantId: tenant.tenantId });
        if (messages.length > 100) messages.shift();
        options.print(
          `\n----- DEV OUTBOX (not sent) -----\nFrom: ${from}\nTo: ${message.to}\nSubject: ${message.subject}\n\n${message.text}\n${(message.attachments ?? []).map((attachment) => `[adjunto: ${attachment.filename}]\n`).join('')}---------------------------------\n`,
        );
        return;
      }
      const mail = {
        from,
        ...message,
        attachments: message.attachments?.map((attachment) => ({ ...attachment })),
        headers: message.headers && { ...message.headers },
      };
      if (pool) {
        await pool.send(settings, mail);
        return;
      }
      const transport = nodemailer.createTransport(settings);
      try {
        await transport.sendMail(mail);
      } finally {
        transport.close();
      }
    },
    close() {
      pool?.close();
    },
  };
}
