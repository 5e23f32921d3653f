import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { addDays, instantOfLocalTime, isoInTimeZone } from '../../platform/dates.js';
import { numericToNumber } from '../../platform/money.js';
import { transferProvider } from './providers/table.js';
import { inPublic } from '../../platform/db/executor.js';
import type { TenantDatabase } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import { formatMoney } from '../../platform/format.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import type { Tenancy } from '../../platform/tenancy/tenancy.js';
import type { Credits } from './credits.js';
import { lockCredit, updateCredit } from './queries.js';
import type { TransferRails } from './settings.js';

/*
 * The transfers as the business's console sees them (docs/staff.md, docs/transfers.md "What
 * waits for a person"): the credits that wait in Atención, and a clerk's assignment of one to a
 * customer record, which then becomes that customer's receipt.
 */

export interface TransferStaffTenant {
  tenantId: number;
  db: Kysely<TenantDatabase>;
}

export interface TransferAttentionItem {
  payment_id: null;
  transferencia_id: string;
  motivo: 'transferencia_sin_cliente' | 'transferencia_revertida';
  detalle: string;
  desde: string;
}

export function createTransfersConsole(deps: {
  tenancy: Tenancy;
  calendar: TenantCalendar;
  rails: TransferRails;
  credits: Credits;
}) {
  async function attention(staff: TransferStaffTenant): Promise<TransferAttentionItem[]> {
    const [rows, zone] = await Promise.all([
      inPublic(staff.db)
        .selectFrom('portal_transfer_credits')
        .select([
          'id',
          'estado',
          'detalle',
          'monto',
          'moneda',
          'cuenta',
          'ordenante_nombre',
          'ordenante_banco',
          'created_at',
        ])
        .where('tenant_id', '=', staff.tenantId)
        .where('estado', 'in', ['sin_cliente', 'revertida'])
        .orderBy('created_at')
        .orderBy('id')
        .limit(1000)
        .execute(),
      deps.calendar.zone(staff),
    ]);
    return rows.map((row) => {
      const said = [
        `${row.moneda === 'ARS' ? formatMoney(row.monto) : `${row.monto} ${row.moneda}`}`,
        row.cuenta && `a la cuenta ${row.cuenta}`,
        row.ordenante_nombre && `de ${row.ordenante_nombre}`,
        row.ordenante_banco && `(${row.ordenante_banco})`,
      ].filter(Boolean);
      return {
        payment_id: null,
        transferencia_id: String(row.id),
        motivo:
          row.estado === 'revertida' ? 'transferencia_revertida' : 'transferencia_sin_cliente',
        detalle: `${row.detalle ?? ''} Transferencia de ${said.join(' ')}.`.trim(),
        desde: isoInTimeZone(row.created_at, zone),
      };
    });
  }

  /**
   * Gives a `sin_cliente` credit to a customer record of the tenant and applies it (409
   * INVALID_STATUS for any other state; a credit in another currency stays with a person).
   */
  async function assign(
    staff: TransferStaffTenant,
    id: number,
    to: { sucursalId: number; cnro: number; by: string },
  ): Promise<{
    transferencia_id: string;
    estado: 'aplicada' | 'pendiente';
    recibo_id: string | null;
  }> {
    const tenant = await deps.tenancy.resolve(staff.tenantId, to.sucursalId);
    const lookup = await deps.rails.railOf(staff);
    if (!lookup.on) {
      throw new AppError('VALIDATION_ERROR', 'La empresa no tiene las transferencias activadas');
    }
    const customer = await tenant.db
      .withSchema(tenant.customerSchema)
      .selectFrom('ordcon')
      .select('cnro')
      .where('cnro', '=', to.cnro)
      .executeTakeFirst();
    if (!customer) throw new AppError('ORDCON_NOT_FOUND', 'Cliente no encontrado');
    await staff.db.transaction().execute(async function assignCredit(trx) {
      const credit = await lockCredit(trx, staff.tenantId, id);
      if (!credit) throw new AppError('NOT_FOUND', 'Transferencia no encontrada');
      if (credit.estado !== 'sin_cliente') {
        throw new AppError('INVALID_STATUS', 'La transferencia no espera que se la asigne');
      }
      if (credit.moneda !== 'ARS') {
        throw new AppError(
          'VALIDATION_ERROR',
          'La transferencia no es en pesos: no puede ser un recibo del portal',
        );
      }
      await updateCredit(trx, staff.tenantId, id, {
        estado: 'pendiente',
        motivo: null,
        detalle: null,
        sucursal_id: tenant.sucursalId,
        customer_schema: tenant.customerSchema,
        cnro: to.cnro,
        asignada_por: to.by.slice(0, 100),
      });
    });
    const outcome = await deps.credits.apply(
      { tenantId: staff.tenantId, db: staff.db, rail: lookup.rail },
      id,
    );
    const row = await inPublic(staff.db)
      .selectFrom('portal_transfer_credits')
      .select(['estado', 'recibo_id'])
      .where('tenant_id', '=', staff.tenantId)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return {
      transferencia_id: String(id),
      estado: outcome === 'applied' || row.estado === 'aplicada' ? 'aplicada' : 'pendiente',
      recibo_id: row.recibo_id,
    };
  }

  /**
   * What transfers brought today and in the last 30 days (the tenant's days), by provider: the
   * console's collections list them beside the gateways' (`por_metodo`).
   */
  async function collected(staff: TransferStaffTenant) {
    const [zone, today] = await Promise.all([
      deps.calendar.zone(staff),
      deps.calendar.today(staff),
    ]);
    const todayFrom = instantOfLocalTime(today, 0, zone);
    const monthFrom = instantOfLocalTime(addDays(today, -29), 0, zone);
    const { rows } = await sql<{
      provider: string;
      hoy_cantidad: string;
      hoy_monto: string;
      mes_cantidad: string;
      mes_monto: string;
    }>`
      SELECT provider,
             count(*) FILTER (WHERE created_at >= ${todayFrom}) AS hoy_cantidad,
             coalesce(sum(monto) FILTER (WHERE created_at >= ${todayFrom}), 0)::text AS hoy_monto,
             count(*) AS mes_cantidad,
             coalesce(sum(monto), 0)::text AS mes_monto
        FROM public.portal_transfer_credits
       WHERE tenant_id = ${staff.tenantId} AND estado = 'aplicada' AND created_at >= ${monthFrom}
       GROUP BY provider
    `.execute(staff.db);
    const entry = (provider: string, cantidad: string, monto: string) => ({
      metodo: `transferencia_${provider}`,
      metodo_nombre: `Transferencia (${transferProvider(provider)?.label ?? provider})`,
      cantidad: Number(cantidad),
      monto: numericToNumber(monto),
    });
    return {
      hoy: rows
        .map((row) => entry(row.provider, row.hoy_cantidad, row.hoy_monto))
        .filter((item) => item.cantidad > 0),
      ultimos_30_dias: rows.map((row) => entry(row.provider, row.mes_cantidad, row.mes_monto)),
    };
  }

  return { attention, assign, collected };
}

export type TransfersConsole = ReturnType<typeof createTransfersConsole>;
