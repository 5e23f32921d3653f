import { greeting } from '../../platform/mail/greeting.js';
import type { JobQueue } from '../../platform/jobs.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import type { Tenancy, TenantContext } from '../../platform/tenancy/tenancy.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import { findUserProfile } from './queries.js';

export const PASSWORD_NOTICE_JOB = 'auth.password-changed-email';

/** How the password changed: from the profile (the current one known) or with an e-mailed code. */
export type PasswordChangeKind = 'change' | 'reset';

interface PasswordNoticeJob {
  tenantId: number;
  sucursalId: number;
  portalUserId: string;
  /** When the new password was stored (ISO 8601). */
  changedAt: string;
  kind: PasswordChangeKind;
}

/** `29/11/2026 a las 08:15` in `timeZone`: the wall time the customer lives in. */
export function wallTime(instant: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('es-AR', {
    timeZone,
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((candidate) => candidate.type === type)?.value ?? '';
  return `${part('day')}/${part('month')}/${part('year')} a las ${part('hour')}:${part('minute')}`;
}

/** The message's text: what happened, when (the tenant's clock), and what to do if it was not them. */
export function passwordNoticeText(input: {
  nombre: string | null;
  empresa: string;
  changedAt: Date;
  timeZone: string;
  kind: PasswordChangeKind;
}): string {
  const how =
    input.kind === 'reset'
      ? 'con el código que te enviamos por e-mail'
      : 'desde tu perfil, con la contraseña anterior';
  return [
    greeting(input.nombre),
    '',
    `La contraseña de tu cuenta del portal de clientes de ${input.empresa} se cambió el ${wallTime(input.changedAt, input.timeZone)} (hora de ${input.empresa}), ${how}.`,
    'Cerramos las sesiones abiertas: para volver a ingresar se usa la contraseña nueva.',
    '',
    'Si fuiste vos, no tenés que hacer nada.',
    `Si no fuiste vos, alguien conoce tu contraseña o tiene acceso a tu e-mail: entrá al portal, elegí "Olvidé mi contraseña" para crear una nueva, revisá la seguridad de tu e-mail y comunicate con ${input.empresa} cuanto antes.`,
  ].join('\n');
}

/**
 * "Cambiaste tu contraseña" (issue 38): a password change or reset is announced to the account's
 * e-mail, so that an owner who did not do it learns at once. Queued once per change, after the
 * new password is stored, through the job queue like every other e-mail: a mail outage delays it
 * and loses nothing. The address is read when it is sent, as the reset code's is.
 */
export function createPasswordNotices(deps: {
  tenancy: Tenancy;
  calendar: Pick<TenantCalendar, 'zone'>;
  jobs: JobQueue;
  mailer: Mailer;
}) {
  const { tenancy, calendar, jobs, mailer } = deps;

  async function send(job: PasswordNoticeJob): Promise<void> {
    const tenant = await tenancy.tryResolve(job.tenantId, job.sucursalId);
    if (!tenant) return;
    const profile = await findUserProfile(tenant, job.portalUserId);
    if (!profile) return;
    await mailer.send(tenant, {
      to: profile.email,
      subject: 'Cambiaste tu contraseña',
      text: passwordNoticeText({
        nombre: profile.cnom,
        empresa: tenant.tenantName,
        changedAt: new Date(job.changedAt),
        // The tenant's zone as every date of the portal uses it (an unknown one: the default).
        timeZone: await calendar.zone(tenant),
        kind: job.kind,
      }),
    });
  }

  return {
    async announce(
      tenant: TenantContext,
      portalUserId: string,
      changedAt: Date,
      kind: PasswordChangeKind,
    ): Promise<void> {
      const data: PasswordNoticeJob = {
        tenantId: tenant.tenantId,
        sucursalId: tenant.sucursalId,
        portalUserId,
        changedAt: changedAt.toISOString(),
        kind,
      };
      // One change, one job, even if this is called again for it.
      await jobs.send(PASSWORD_NOTICE_JOB, data, {
        singletonKey: `${tenant.tenantId}:${portalUserId}:${data.changedAt}`,
      });
    },

    /** `concurrency`: notices at once on this instance (PORTAL_JOB_CONCURRENCY). */
    async work(concurrency: number): Promise<void> {
      await jobs.work<PasswordNoticeJob>(PASSWORD_NOTICE_JOB, send, { concurrency });
    },
  };
}

export type PasswordNotices = ReturnType<typeof createPasswordNotices>;
