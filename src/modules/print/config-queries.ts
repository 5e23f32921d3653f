import type { Transaction, Updateable } from 'kysely';
import { inCustomerSchema, type TenantExecutor } from '../../platform/db/executor.js';
import type { PrintDocument, TenantDatabase } from '../../platform/db/types.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';

type PrintConfigTable = TenantDatabase['portal_print_config'];

const COLUMNS = ['id', 'documento', 'impresora', 'papel', 'copias', 'predeterminada'] as const;

export function listPrintConfigs(
  tenant: TenantContext,
  portalUserId: string,
  documento: PrintDocument | undefined,
) {
  let query = inCustomerSchema(tenant.db, tenant)
    .selectFrom('portal_print_config')
    .select(COLUMNS)
    .where('portal_user_id', '=', portalUserId);
  if (documento !== undefined) query = query.where('documento', '=', documento);
  return query
    .orderBy('documento')
    .orderBy('predeterminada', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findPrintConfig(
  db: TenantExecutor,
  tenant: TenantContext,
  portalUserId: string,
  id: string,
) {
  return inCustomerSchema(db, tenant)
    .selectFrom('portal_print_config')
    .select(COLUMNS)
    .where('id', '=', id)
    .where('portal_user_id', '=', portalUserId)
    .executeTakeFirst();
}

/**
 * Locks the portal user's row for the rest of the transaction: every change to that user's
 * print configurations queues here, so "one default per documento" is decided one at a time.
 * Answers false when the user no longer exists.
 */
export async function lockPortalUser(
  trx: Transaction<TenantDatabase>,
  tenant: TenantContext,
  portalUserId: string,
): Promise<boolean> {
  const user = await inCustomerSchema(trx, tenant)
    .selectFrom('portal_users')
    .select('id')
    .where('id', '=', portalUserId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return user !== undefined;
}

/** How many print configurations the user has. */
export async function countPrintConfigs(
  trx: Transaction<TenantDatabase>,
  tenant: TenantContext,
  portalUserId: string,
): Promise<number> {
  const { count } = await inCustomerSchema(trx, tenant)
    .selectFrom('portal_print_config')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('portal_user_id', '=', portalUserId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Takes the default away from the user's other configuration of that documento, if any. */
export async function clearDefault(
  trx: Transaction<TenantDatabase>,
  tenant: TenantContext,
  change: { portalUserId: string; documento: PrintDocument; exceptId?: string; now: Date },
): Promise<void> {
  let query = inCustomerSchema(trx, tenant)
    .updateTable('portal_print_config')
    .set({ predeterminada: false, updated_at: change.now })
    .where('portal_user_id', '=', change.portalUserId)
    .where('documento', '=', change.documento)
    .where('predeterminada', '=', true);
  if (change.exceptId !== undefined) query = query.where('id', '<>', change.exceptId);
  await query.execute();
}

export function insertPrintConfig(
  trx: Transaction<TenantDatabase>,
  tenant: TenantContext,
  values: {
    portal_user_id: string;
    documento: PrintDocument;
    impresora: string;
    papel: PrintConfigTable['papel'];
    copias: number;
    predeterminada: boolean;
    created_at: Date;
  },
) {
  return inCustomerSchema(trx, tenant)
    .insertInto('portal_print_config')
    .values(values)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export function updatePrintConfig(
  trx: Transaction<TenantDatabase>,
  tenant: TenantContext,
  id: string,
  changes: Updateable<PrintConfigTable>,
) {
  return inCustomerSchema(trx, tenant)
    .updateTable('portal_print_config')
    .set(changes)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export function deletePrintConfig(tenant: TenantContext, portalUserId: string, id: string) {
  return inCustomerSchema(tenant.db, tenant)
    .deleteFrom('portal_print_config')
    .where('id', '=', id)
    .where('portal_user_id', '=', portalUserId)
    .returning(COLUMNS)
    .executeTakeFirst();
}
