/**
 * What the reminders read of the deployment (config.ts's variables, filled by
 * src/module-settings.ts): their links' bases, the mail server a command sends through, and how
 * many e-mail jobs an instance runs at once.
 */
export interface RemindersSettings {
  /** The first is the web client's origin, the debts page's (PORTAL_ALLOWED_ORIGIN). */
  allowedOrigins: readonly string[];
  /** The unsubscribe link's base (BACKEND_URL); without it no reminder is sent. */
  backendUrl: string | undefined;
  /** SMTP_URL: what `avisos enviar` sends through when a tenant's ini names no server. */
  smtpUrl: string | undefined;
  jobConcurrency: number;
}
