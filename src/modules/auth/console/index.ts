import type { Audit, RequestOrigin } from '../../../platform/audit.js';
import type { Clock } from '../../../platform/clock.js';
import { isoInTimeZone } from '../../../platform/dates.js';
import { AppError } from '../../../platform/errors.js';
import { isUuid } from '../../../platform/ids.js';
import type { SucursalSchemas } from '../../../platform/tenancy/sucursal-schemas.js';
import type { Tenancy, TenantContext } from '../../../platform/tenancy/tenancy.js';
import type { TenantCalendar } from '../../../platform/tenancy/today.js';
import { clearFailedLogins, setAccountAccess } from '../queries.js';
import type { Sessions } from '../sessions.js';
import { countConsoleClients, findConsoleClients, type ConsoleClientRow } from './queries.js';

/*
 * The portal accounts as the business's console reads them and acts on them (docs/staff.md
 * "Clientes"): a lock cleared, the sessions ended, access turned off or on. Nothing of the
 * customer's ERP data changes; each act is in the authentication audit too, as the customer's
 * own events are.
 */

/** The tenant a staff request is of (any sucursal's context has both). */
interface StaffTenant {
  tenantId: number;
  db: TenantContext['db'];
}

const NOT_FOUND = 'Cuenta del portal no encontrada';
const ACTIVE_DAYS = 30;

export interface ConsoleClient {
  portal_user_id: string;
  sucursal_id: number;
  cnro: number;
  nombre: string;
  dni_cuit: string;
  email: string;
  telefono: string | null;
  registrado: string;
  last_login: string | null;
  bloqueado_hasta: string | null;
  sesion_activa: boolean;
  avisos: boolean;
  habilitado: boolean;
}

export function createAccountsConsole(deps: {
  tenancy: Tenancy;
  sucursales: SucursalSchemas;
  calendar: TenantCalendar;
  clock: Clock;
  sessions: Pick<Sessions, 'revoke'>;
  audit: Audit;
}) {
  const { tenancy, calendar, clock, sessions, audit } = deps;

  function itemOf(row: ConsoleClientRow, zone: string, now: Date): ConsoleClient {
    return {
      portal_user_id: row.id,
      sucursal_id: row.sucursal_id,
      cnro: row.cnro,
      nombre: row.cnom?.trim() ?? '',
      dni_cuit: row.dni_cuit,
      email: row.email,
      telefono: row.telefono,
      registrado: isoInTimeZone(row.created_at, zone),
      last_login: row.last_login && isoInTimeZone(row.last_login, zone),
      bloqueado_hasta:
        row.locked_until && row.locked_until > now ? isoInTimeZone(row.locked_until, zone) : null,
      sesion_activa: row.sesion_activa,
      avisos: row.avisos_vencimiento,
      habilitado: row.acceso_habilitado,
    };
  }

  async function sucursalesOf(tenant: StaffTenant, sucursalId: number | undefined) {
    const all = await deps.sucursales.of(tenant);
    if (sucursalId === undefined) return all;
    const one = all.filter((sucursal) => sucursal.id === sucursalId);
    if (one.length === 0)
      throw new AppError('INVALID_SUCURSAL', 'La sucursal no pertenece a la empresa');
    return one;
  }

  /** The account's sucursal context, or 404 USER_NOT_FOUND (one answer for absent and foreign). */
  async function accountContext(tenant: StaffTenant, sucursalId: number, portalUserId: string) {
    if (!isUuid(portalUserId)) throw new AppError('USER_NOT_FOUND', NOT_FOUND);
    const context = await tenancy.tryResolve(tenant.tenantId, sucursalId);
    if (!context) throw new AppError('USER_NOT_FOUND', NOT_FOUND);
    return context;
  }

  async function itemAfter(tenant: StaffTenant, context: TenantContext, portalUserId: string) {
    const now = clock.now();
    const [zone, rows] = await Promise.all([
      calendar.zone(tenant),
      findConsoleClients(tenant.db, {
        sucursales: [{ id: context.sucursalId, schema: context.customerSchema }],
        q: undefined,
        now,
        portalUserId,
        page: { limit: 1, offset: 0 },
      }),
    ]);
    const row = rows[0];
    if (!row) throw new AppError('USER_NOT_FOUND', NOT_FOUND);
    return itemOf(row, zone, now);
  }

  return {
    async page(
      tenant: StaffTenant,
      query: { q?: string | undefined; sucursal_id?: number | undefined },
      page: { limit: number; offset: number },
    ) {
      const now = clock.now();
      const [zone, sucursales] = await Promise.all([
        calendar.zone(tenant),
        sucursalesOf(tenant, query.sucursal_id),
      ]);
      const rows = await findConsoleClients(tenant.db, { sucursales, q: query.q, now, page });
      const total = rows[0] ? Number(rows[0].total) : 0;
      return {
        items: rows.map((row) => itemOf(row, zone, now)),
        total,
        has_more: page.offset + rows.length < total,
      };
    },

    async counts(tenant: StaffTenant) {
      const now = clock.now();
      const counts = await countConsoleClients(tenant.db, {
        sucursales: await deps.sucursales.of(tenant),
        now,
        activeSince: new Date(now.getTime() - ACTIVE_DAYS * 86_400_000),
      });
      return {
        con_cuenta: Number(counts.con_cuenta),
        activos_30_dias: Number(counts.activos),
        bloqueados: Number(counts.bloqueados),
      };
    },

    /** The account as the console lists it (the object an action names). */
    async find(tenant: StaffTenant, sucursalId: number, portalUserId: string) {
      return itemAfter(
        tenant,
        await accountContext(tenant, sucursalId, portalUserId),
        portalUserId,
      );
    },

    /** The lock and the failure count cleared (audited as `login_unlocked`). */
    async unlock(
      tenant: StaffTenant,
      sucursalId: number,
      portalUserId: string,
      origin: RequestOrigin,
    ) {
      const context = await accountContext(tenant, sucursalId, portalUserId);
      if (!(await clearFailedLogins(context.db, context, portalUserId, clock.now()))) {
        throw new AppError('USER_NOT_FOUND', NOT_FOUND);
      }
      await audit.record(context, origin, { event: 'login_unlocked', portalUserId });
      return itemAfter(tenant, context, portalUserId);
    },

    /** The refresh token revoked and every access token of the account ended at once. */
    async endSessions(
      tenant: StaffTenant,
      sucursalId: number,
      portalUserId: string,
      origin: RequestOrigin,
    ) {
      const context = await accountContext(tenant, sucursalId, portalUserId);
      await itemAfter(tenant, context, portalUserId);
      await sessions.revoke(context, portalUserId, 'staff');
      await audit.record(context, origin, { event: 'sessions_ended_by_staff', portalUserId });
      return itemAfter(tenant, context, portalUserId);
    },

    /**
     * Access off: no login, refresh or token works until it is on again (its sessions end now).
     * On: the customer logs in again as before. The ERP's data is untouched.
     */
    async setAccess(
      tenant: StaffTenant,
      sucursalId: number,
      portalUserId: string,
      enabled: boolean,
      origin: RequestOrigin,
    ) {
      const context = await accountContext(tenant, sucursalId, portalUserId);
      if (!(await setAccountAccess(context.db, context, portalUserId, enabled, clock.now()))) {
        throw new AppError('USER_NOT_FOUND', NOT_FOUND);
      }
      if (!enabled) await sessions.revoke(context, portalUserId, 'disabled');
      await audit.record(context, origin, {
        event: 'access_changed_by_staff',
        portalUserId,
        details: { habilitado: enabled },
      });
      return itemAfter(tenant, context, portalUserId);
    },
  };
}

export type AccountsConsole = ReturnType<typeof createAccountsConsole>;
