import type { JobQueue } from '../../platform/jobs.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import type { Tenancy, TenantContext } from '../../platform/tenancy/tenancy.js';

export const EMAIL_CHANGE_NOTICE_JOB = 'profile.email-change-notice';

interface NoticeJob {
  tenantId: number;
  sucursalId: number;
  previousEmail: string;
  newEmail: string;
}

/** `ana.gomez@example.com` -> `a***@example.com`: enough to recognise, not to harvest. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

/**
 * An e-mail change is announced to the previous address: the change is what an access-token
 * thief would do first (then reset the password to the new address), and the previous owner is
 * the one who can tell. Sent by the job queue, so a mail outage delays it and loses nothing.
 */
export function createEmailChangeNotices(deps: {
  tenancy: Tenancy;
  jobs: JobQueue;
  mailer: Mailer;
}) {
  const { tenancy, jobs, mailer } = deps;

  async function send(job: NoticeJob): Promise<void> {
    const tenant = await tenancy.tryResolve(job.tenantId, job.sucursalId);
    if (!tenant) return;
    await mailer.send(tenant, {
      to: job.previousEmail,
      subject: 'Cambió el e-mail de tu cuenta del portal de clientes',
      text: [
        'Hola:',
        '',
        `El e-mail de tu cuenta del portal de clientes de ${tenant.tenantName} se cambió a ${maskEmail(job.newEmail)}.`,
        'Desde ahora los avisos y los códigos para restablecer la contraseña van a esa dirección.',
        '',
        `Si no hiciste este cambio, comunicate con ${tenant.tenantName} cuanto antes.`,
      ].join('\n'),
    });
  }

  return {
    async announce(tenant: TenantContext, previousEmail: string, newEmail: string) {
      await jobs.send(EMAIL_CHANGE_NOTICE_JOB, {
        tenantId: tenant.tenantId,
        sucursalId: tenant.sucursalId,
        previousEmail,
        newEmail,
      } satisfies NoticeJob);
    },

    /** `concurrency`: notices at once on this instance (PORTAL_JOB_CONCURRENCY). */
    async work(concurrency: number): Promise<void> {
      await jobs.work<NoticeJob>(EMAIL_CHANGE_NOTICE_JOB, send, { concurrency });
    },
  };
}

export type EmailChangeNotices = ReturnType<typeof createEmailChangeNotices>;
