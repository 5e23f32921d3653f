import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { readIni } from '../tenancy/ini.js';
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
  send(tenant: TenantContext, message: MailMessage): Promise<void>;
}

/** Messages the development outbox received, newest last (tests and the demo read them). */
export interface Outbox {
  readonly messages: readonly (MailMessage & { from: string; tenantId: number })[];
}

const MAIL_KEYS = [
  'mail.smtp.host',
  'mail.smtp.port',
  'mail.smtp.user',
  'mail.smtp.password',
  'mail.smtp.secure',
  'mail.from',
] as const;

const DEFAULT_FROM = 'Portal de clientes <no-reply@localhost>';

/**
 * nodemailer over SMTP with the tenant's `mail.smtp.*` settings (the ERP's own mail settings,
 * reused), else SMTP_URL; in development without either, an outbox printed to the console so a
 * person trying the demo can read the code. Production without a transport fails the send (the
 * job retries and the failure is logged).
 */
export function createMailer(options: {
  smtpUrl: string | undefined;
  devOutbox: boolean;
  print: (text: string) => void;
}): Mailer & Outbox {
  const messages: (MailMessage & { from: string; tenantId: number })[] = [];

  async function transportFor(
    tenant: TenantContext,
  ): Promise<{ transport?: Transporter; from: string }> {
    const ini = await readIni(tenant, MAIL_KEYS);
    const from = ini.get('mail.from') ?? DEFAULT_FROM;
    const host = ini.get('mail.smtp.host');
    if (host) {
      const user = ini.get('mail.smtp.user');
      return {
        from,
        transport: nodemailer.createTransport({
          host,
          port: Number(ini.get('mail.smtp.port') ?? 587),
          secure: ini.get('mail.smtp.secure') === 'true',
          ...(user && { auth: { user, pass: ini.get('mail.smtp.password') ?? '' } }),
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 20_000,
        }),
      };
    }
    if (options.smtpUrl) return { from, transport: nodemailer.createTransport(options.smtpUrl) };
    return { from };
  }

  return {
    messages,
    async send(tenant, message) {
      const { transport, from } = await transportFor(tenant);
      if (!transport) {
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
      try {
        await transport.sendMail({
          from,
          ...message,
          attachments: message.attachments?.map((attachment) => ({ ...attachment })),
          headers: message.headers && { ...message.headers },
        });
      } finally {
        transport.close();
      }
    },
  };
}
