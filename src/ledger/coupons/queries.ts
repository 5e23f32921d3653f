import { sql, type SelectQueryBuilder, type Transaction } from 'kysely';
import { couponOutlived } from '../../platform/coupons.js';
import { inCustomerSchema, inPublic, type TenantExecutor } from '../../platform/db/executor.js';
import type { StoredCouponState, TenantDatabase } from '../../platform/db/types.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { CouponState, CouponInvoice } from './types.js';

export interface StoredCoupon {
  id: string;
  codigo_barras: string;
  cnro: number;
  secuencia: number;
  sucursal_id: number;
  monto: string;
  estado: StoredCouponState;
  fecha_generacion: string;
  fecha_vencimiento: string;
  used_at: Date | null;
  cancelled_at: Date | null;
}

const STORED_COLUMNS = [
  'id',
  'codigo_barras',
  'cnro',
  'secuencia',
  'sucursal_id',
  'monto',
  'estado',
  'fecha_generacion',
  'fecha_vencimiento',
  'used_at',
  'cancelled_at',
] as const;

const COUPON_COLUMNS = STORED_COLUMNS.map((column) => `c.${column}` as const);

function coupons(db: TenantExecutor, schema: string) {
  return db.withSchema(schema).selectFrom('ledger_cupones as c');
}

/** A coupon row as read: stored, with couponOutlived's answer (docs/decisions.md #50). */
export type ReadCoupon = StoredCoupon & { outlived: boolean };

/** The debts the coupon `c` pays, in their order, as one json column of the same statement. */
function invoicesOf(schema: string) {
  return sql<CouponInvoice[]>`(
    SELECT coalesce(json_agg(json_build_object('id', f.factura_id::text, 'tipo', f.tipo,
             'numero', f.numero, 'monto', f.monto::text) ORDER BY f.orden), '[]'::json)
      FROM ${sql.table(`${schema}.ledger_cupon_facturas`)} f
     WHERE f.cupon_id = c.id)`;
}

/**
 * A coupon with its debts and whether one of them now owes less than the coupon assigns to it,
 * in one statement: the unique barcode or the primary key, then primary keys only.
 */
export function findCouponBy(
  db: TenantExecutor,
  schema: string,
  by: { id: string } | { codigoBarras: string },
): Promise<(ReadCoupon & { facturas: CouponInvoice[] }) | undefined> {
  const query = coupons(db, schema).select([
    ...COUPON_COLUMNS,
    couponOutlived(schema, 'c').as('outlived'),
    invoicesOf(schema).as('facturas'),
  ]);
  return 'id' in by
    ? query.where('c.id', '=', by.id).executeTakeFirst()
    : query.where('c.codigo_barras', '=', by.codigoBarras).executeTakeFirst();
}

/** Whose coupon it is, from the coupon row alone (no facturas). */
export function findCouponOwner(
  db: TenantExecutor,
  schema: string,
  id: string,
): Promise<{ id: string; cnro: number; codigo_barras: string } | undefined> {
  return coupons(db, schema)
    .select(['c.id', 'c.cnro', 'c.codigo_barras'])
    .where('c.id', '=', id)
    .executeTakeFirst();
}

/**
 * The SQL side of a listing filter, the same rule as couponStateOn: `pending`, `expired` and a
 * `cancelled` computed on read are all stored `pending`, told apart by whether a covered debt
 * owes less than the coupon assigns to it (docs/decisions.md #50, which wins) and by
 * fecha_vencimiento against the tenant's today (expired once the due date is before today).
 */
function filteredByState<O>(
  query: SelectQueryBuilder<TenantDatabase & { c: TenantDatabase['ledger_cupones'] }, 'c', O>,
  schema: string,
  state: CouponState | undefined,
  today: string,
) {
  const outlived = couponOutlived(schema, 'c');
  switch (state) {
    case undefined:
      return query;
    case 'pending':
      return query
        .where('c.estado', '=', 'pending')
        .where('c.fecha_vencimiento', '>=', today)
        .where(sql<boolean>`NOT ${outlived}`);
    case 'expired':
      return query
        .where('c.estado', '=', 'pending')
        .where('c.fecha_vencimiento', '<', today)
        .where(sql<boolean>`NOT ${outlived}`);
    case 'cancelled':
      return query.where((eb) =>
        eb.or([
          eb('c.estado', '=', 'cancelled'),
          eb.and([eb('c.estado', '=', 'pending'), outlived]),
        ]),
      );
    case 'used':
      return query.where('c.estado', '=', state);
  }
}

/** One page of a customer's coupons, newest first, and how many match in all. */
export async function listCustomerCoupons(
  tenant: TenantContext,
  cnro: number,
  filter: { estado: CouponState | undefined; limit: number; offset: number; today: string },
): Promise<{ rows: (ReadCoupon & { facturas: CouponInvoice[] })[]; total: number }> {
  const schema = tenant.customerSchema;
  const base = coupons(tenant.db, schema).where('c.cnro', '=', cnro);
  const [rows, count] = await Promise.all([
    filteredByState(
      base.select([
        ...COUPON_COLUMNS,
        couponOutlived(schema, 'c').as('outlived'),
        // Each coupon's debts in the same statement: the debts page marks the ones a coupon names.
        invoicesOf(schema).as('facturas'),
      ]),
      schema,
      filter.estado,
      filter.today,
    )
      // The sequence grows with every coupon of the customer: newest first, stable across pages.
      .orderBy('c.secuencia', 'desc')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute(),
    filteredByState(
      base.select((eb) => eb.fn.countAll<number>().as('total')),
      schema,
      filter.estado,
      filter.today,
    ).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/**
 * The customer's next coupon sequence. The counter row is created or bumped in one statement and
 * stays locked until the transaction ends, so concurrent generations for one customer take
 * 1, 2, 3... in turn, and a generation that rolls back gives its number back.
 */
export async function nextCouponSequence(
  trx: Transaction<TenantDatabase>,
  cnro: number,
): Promise<number> {
  const row = await inPublic(trx)
    .insertInto('ledger_cupon_secuencias')
    .values({ cnro, ultimo: 1 })
    .onConflict((oc) =>
      oc.column('cnro').doUpdateSet({ ultimo: sql<number>`ledger_cupon_secuencias.ultimo + 1` }),
    )
    .returning('ultimo')
    .executeTakeFirstOrThrow();
  return row.ultimo;
}

/** Stores a coupon and its facturas (in the given order); answers the coupon row as stored. */
export async function insertCoupon(
  trx: Transaction<TenantDatabase>,
  schema: string,
  coupon: {
    codigo_barras: string;
    cnro: number;
    secuencia: number;
    sucursal_id: number;
    monto: string;
    fecha_generacion: string;
    fecha_vencimiento: string;
    created_at: Date;
  },
  facturas: readonly CouponInvoice[],
): Promise<StoredCoupon> {
  const row = await trx
    .withSchema(schema)
    .insertInto('ledger_cupones')
    .values(coupon)
    .returning(STORED_COLUMNS)
    .executeTakeFirstOrThrow();
  await trx
    .withSchema(schema)
    .insertInto('ledger_cupon_facturas')
    .values(
      facturas.map(({ id, tipo, numero, monto }, orden) => ({
        cupon_id: row.id,
        factura_id: id,
        orden,
        tipo,
        numero,
        monto,
      })),
    )
    .execute();
  return row;
}

/**
 * Moves a coupon to `to` when its stored state is one of `from`; answers whether it moved. One
 * UPDATE: two concurrent transitions cannot both succeed from the same state.
 */
export async function moveCoupon(
  tenant: TenantContext,
  id: string,
  from: readonly StoredCouponState[],
  to: 'used' | 'cancelled',
  now: Date,
): Promise<boolean> {
  const moved = await inCustomerSchema(tenant.db, tenant)
    .updateTable('ledger_cupones')
    .set({
      estado: to,
      updated_at: now,
      ...(to === 'used' ? { used_at: now } : { cancelled_at: now }),
    })
    .where('id', '=', id)
    .where('estado', 'in', from)
    .returning('id')
    .executeTakeFirst();
  return moved !== undefined;
}
