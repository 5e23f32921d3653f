import type { FastifyBaseLogger } from 'fastify';
import { inPublic } from './db/executor.js';
import type { TenantContext } from './tenancy/tenancy.js';

/** docs/api.md "Audit logging" events, plus docs/decisions.md #17's and 28's. */
export type AuditEvent =
  | 'login_success'
  /** A pay link exchanged for a token that may only pay (docs/pay-links.md). */
  | 'login_link'
  | 'login_failed'
  | 'login_locked'
  /** The business's staff cleared the lock (docs/staff.md "desbloquear"). */
  | 'login_unlocked'
  /** The business's staff ended the account's sessions, or turned its access off or on. */
  | 'sessions_ended_by_staff'
  | 'access_changed_by_staff'
  | 'register'
  | 'password_reset_request'
  | 'password_reset_complete'
  | 'password_change'
  | 'logout'
  | 'token_refresh'
  | 'refresh_reuse'
  /** docs/decisions.md #28: a rejected or cancelled payment approved by the gateway after all. */
  | 'payment_approved_after_close'
  /** A refund or chargeback made at the gateway, applied to the ledger like devolver. */
  | 'payment_refunded_at_gateway';

export interface RequestOrigin {
  ip: string;
  userAgent: string | undefined;
}

export interface AuditEntry {
  event: AuditEvent;
  portalUserId?: string | undefined;
  /** Non-secret context only (a reason code, a count); never passwords, codes or tokens. */
  details?: Record<string, string | number | boolean>;
}

export interface Audit {
  record(tenant: TenantContext, origin: RequestOrigin, entry: AuditEntry): Promise<void>;
}

/**
 * Every authentication event: a row in the tenant's `public.portal_audit_log` (who, from where,
 * when) and a log line (docs/decisions.md #17). The line says what happened in which tenant and
 * sucursal, never who or from where: logs carry no user, address or other identifier, the
 * audit table does.
 */
export function createAudit(log: FastifyBaseLogger): Audit {
  return {
    async record(tenant, origin, entry) {
      const row = {
        tenant_id: tenant.tenantId,
        sucursal_id: tenant.sucursalId,
        portal_user_id: entry.portalUserId ?? null,
        ip: origin.ip,
        user_agent: origin.userAgent?.slice(0, 512) ?? null,
        event: entry.event,
        details: entry.details ? JSON.stringify(entry.details) : null,
      };
      log.info(
        { audit: { event: entry.event, tenant_id: row.tenant_id, sucursal_id: row.sucursal_id } },
        `audit ${entry.event}`,
      );
      await inPublic(tenant.db).insertInto('portal_audit_log').values(row).execute();
    },
  };
}
