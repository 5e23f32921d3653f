import type { Kysely } from 'kysely';
import type { Clock } from '../../../platform/clock.js';
import type { SystemDatabase } from '../../../platform/db/types.js';
import { inCustomerSchema } from '../../../platform/db/executor.js';
import { AppError } from '../../../platform/errors.js';
import type { JobQueue } from '../../../platform/jobs.js';
import { greeting } from '../../../platform/mail/greeting.js';
import type { Mailer } from '../../../platform/mail/mailer.js';
import { seal, unseal } from '../../../platform/security/seal.js';
import { sha256Hex } from '../../../platform/security/secrets.js';
import type { Tenancy, TenantContext } from '../../../platform/tenancy/tenancy.js';
import { newLinkToken } from './index.js';
import {
  countInvitations,
  findInvitations,
  findLiveInvitation,
  lastInvitedAt,
  lockLiveInvitation,
  markInvitationOpened,
  markInvitationSent,
  replaceInvitation,
  spendInvitation,
} from './queries.js';

/*
 * Invitations (docs/pay-links.md "Invitations"; docs/decisions.md #46): the business invites a
 * customer of the ERP who has no account, by an e-mail it supplies; the address
 * `{web}/e/{tenant}/registro#invitacion={token}` lets them register without typing a DNI. Single
 * use, 14 days, hashed, one live per customer (a new one replaces it).
 */

export const INVITATION_EMAIL_JOB = 'auth.invitation-email';
export const INVITATION_DAYS = 14;
const INVALID_MESSAGE = 'La invitación no es válida, ya se usó o venció';

interface InvitationEmailJob {
  tenantId: number;
  sucursalId: number;
  email: string;
  nombre: string;
  /** The token, sealed: job rows outlive the request. */
  sealedToken: string;
}

function invitationMessage(tenant: TenantContext, job: InvitationEmailJob, address: string) {
  return {
    to: job.email,
    subject: `${tenant.tenantName} te invita a su portal de clientes`,
    text: [
      greeting(job.nombre),
      '',
      `${tenant.tenantName} te invita a su portal de clientes: ahí ves lo que debés, pagás en línea y descargás tus comprobantes.`,
      '',
      'Creá tu cuenta con este enlace (no hace falta tu documento):',
      '',
      `    ${address}`,
      '',
      `El enlace sirve una sola vez durante ${INVITATION_DAYS} días.`,
      'Si no esperabas este mensaje, ignoralo.',
    ].join('\n'),
  };
}

export type InvitationState = 'enviada' | 'abierta' | 'registrada' | 'vencida';

export function createInvitations(deps: {
  systemDb: Kysely<SystemDatabase>;
  tenancy: Tenancy;
  jobs: JobQueue;
  mailer: Mailer;
  clock: Clock;
  sealKey: Buffer;
  webOrigin: string | undefined;
}) {
  const { systemDb, tenancy, jobs, mailer, clock } = deps;

  function addressOf(tenantId: number, token: string): string {
    return `${deps.webOrigin ?? ''}/e/${tenantId}/registro#invitacion=${token}`;
  }

  /** The live invitation of a token, with its sucursal's context; 400 INVALID_INVITATION else. */
  async function live(token: string) {
    const row = await findLiveInvitation(systemDb, sha256Hex(token), clock.now());
    const tenant = row && (await tenancy.tryResolve(row.tenant_id, row.sucursal_id));
    if (!row || !tenant || tenant.customerSchema !== row.customer_schema) {
      throw new AppError('INVALID_INVITATION', INVALID_MESSAGE);
    }
    const customer = await inCustomerSchema(tenant.db, tenant)
      .selectFrom('ordcon')
      .select(['cnro', 'cnom', 'ccui'])
      .where('cnro', '=', row.cnro)
      .executeTakeFirst();
    if (!customer) throw new AppError('INVALID_INVITATION', INVALID_MESSAGE);
    return { row: { ...row, id: Number(row.id) }, tenant, customer };
  }

  return {
    /**
     * A customer of `tenant`'s sucursal invited at `email`: 404 ORDCON_NOT_FOUND when the
     * sucursal has no such customer, 409 USER_ALREADY_EXISTS when they have an account. The
     * e-mail goes out from the mail queue.
     */
    async invite(tenant: TenantContext, cnro: number, email: string) {
      const customer = await inCustomerSchema(tenant.db, tenant)
        .selectFrom('ordcon')
        .select(['cnro', 'cnom'])
        .where('cnro', '=', cnro)
        .executeTakeFirst();
      if (!customer)
        throw new AppError('ORDCON_NOT_FOUND', 'No hay un cliente con ese número en la sucursal');
      const account = await inCustomerSchema(tenant.db, tenant)
        .selectFrom('portal_users')
        .select('id')
        .where('cnro', '=', cnro)
        .executeTakeFirst();
      if (account)
        throw new AppError('USER_ALREADY_EXISTS', 'El cliente ya tiene cuenta en el portal');
      const token = newLinkToken();
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + INVITATION_DAYS * 86_400_000);
      await replaceInvitation(systemDb, {
        tokenHash: sha256Hex(token),
        tenantId: tenant.tenantId,
        sucursalId: tenant.sucursalId,
        customerSchema: tenant.customerSchema,
        cnro,
        email,
        expiresAt,
        now,
      });
      await jobs.send(INVITATION_EMAIL_JOB, {
        tenantId: tenant.tenantId,
        sucursalId: tenant.sucursalId,
        email,
        nombre: customer.cnom.trim(),
        sealedToken: seal(deps.sealKey, token),
      } satisfies InvitationEmailJob);
      return { enviada: true as const, vence: expiresAt.toISOString() };
    },

    /**
     * The e-mail job: "{business} te invita a su portal de clientes". Once: the invitation's row
     * is locked while the message goes out and marked sent in that transaction, so a job run again
     * (pg-boss retrying one that died after SMTP accepted it) finds it sent and stops.
     */
    async sendEmail(job: InvitationEmailJob): Promise<void> {
      const tenant = await tenancy.tryResolve(job.tenantId, job.sucursalId);
      if (!tenant) return;
      const token = unseal(deps.sealKey, job.sealedToken);
      await systemDb.transaction().execute(async (trx) => {
        const invitation = await lockLiveInvitation(trx, sha256Hex(token), clock.now());
        // Replaced meanwhile (the newer one's own e-mail goes instead), spent or expired; or sent.
        if (!invitation || invitation.sent_at !== null) return;
        await mailer.send(
          tenant,
          invitationMessage(tenant, job, addressOf(tenant.tenantId, token)),
        );
        await markInvitationSent(trx, Number(invitation.id), clock.now());
      });
    },

    /** Whether the customer was invited within the last day (a CSV sends once a day at most). */
    async invitedToday(tenant: TenantContext, cnro: number): Promise<boolean> {
      const last = await lastInvitedAt(systemDb, {
        tenantId: tenant.tenantId,
        customerSchema: tenant.customerSchema,
        cnro,
      });
      return last !== undefined && clock.now().getTime() - last.getTime() < 86_400_000;
    },

    /** `POST /portal/auth/invitacion`: who it invites, marked opened. */
    async read(token: string) {
      const { row, tenant, customer } = await live(token);
      await markInvitationOpened(systemDb, row.id, clock.now());
      return {
        tenant_id: tenant.tenantId,
        sucursal_id: tenant.sucursalId,
        nombre: customer.cnom.trim(),
        email: row.email,
        vence: row.expires_at.toISOString(),
      };
    },

    /** What a registration from the invitation needs: its context and customer. */
    live,

    /** Spent by the registration it made; false when another registration spent it first. */
    spend: (id: number) => spendInvitation(systemDb, id, clock.now()),

    /** The tenant's invitations with their state, and the share that registered. */
    async list(tenantId: number, page: { limit: number; offset: number }) {
      const now = clock.now();
      const [rows, counts] = await Promise.all([
        findInvitations(systemDb, tenantId, page),
        countInvitations(systemDb, tenantId),
      ]);
      const stateOf = (row: (typeof rows)[number]): InvitationState =>
        row.registered_at
          ? 'registrada'
          : row.expires_at <= now
            ? 'vencida'
            : row.opened_at
              ? 'abierta'
              : 'enviada';
      const total = rows[0] ? Number(rows[0].total) : 0;
      return {
        items: rows.map((row) => ({
          sucursal_id: row.sucursal_id,
          cnro: row.cnro,
          email: row.email,
          estado: stateOf(row),
          enviada: row.created_at.toISOString(),
          vence: row.expires_at.toISOString(),
        })),
        total,
        has_more: page.offset + rows.length < total,
        invitados: counts.invitados,
        registrados: counts.registrados,
      };
    },
  };
}

export type Invitations = ReturnType<typeof createInvitations>;
