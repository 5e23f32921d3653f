import { sql, type Kysely } from 'kysely';
import {
  inPublic,
  type TenantExecutor,
  type TenantTransaction,
} from '../../platform/db/executor.js';
import type { TenantDatabase, TransferCreditState } from '../../platform/db/types.js';
import type { ProviderCredit } from './providers/definition.js';

/*
 * The transfers' tables (tenant/0016): each customer record's account at its provider, every
 * credit the provider reported, and the webhook address last registered. No other module reads
 * them; the receipts list and the console ask this module.
 */

export interface TransferAccountRow {
  sucursal_id: number;
  customer_schema: string;
  cnro: number;
  customer_id: string;
  cvu: string;
  alias: string | null;
}

export interface CustomerRecord {
  tenantId: number;
  provider: string;
  customerSchema: string;
  cnro: number;
}

export async function findAccountOfCustomer(
  db: TenantExecutor,
  record: CustomerRecord,
): Promise<TransferAccountRow | undefined> {
  return await inPublic(db)
    .selectFrom('portal_transfer_accounts')
    .select(['sucursal_id', 'customer_schema', 'cnro', 'customer_id', 'cvu', 'alias'])
    .where('tenant_id', '=', record.tenantId)
    .where('provider', '=', record.provider)
    .where('customer_schema', '=', record.customerSchema)
    .where('cnro', '=', record.cnro)
    .executeTakeFirst();
}

export async function insertAccount(
  trx: TenantTransaction,
  record: CustomerRecord & {
    sucursalId: number;
    customerId: string;
    cvu: string;
    alias: string | null;
  },
): Promise<void> {
  await inPublic(trx)
    .insertInto('portal_transfer_accounts')
    .values({
      tenant_id: record.tenantId,
      provider: record.provider,
      sucursal_id: record.sucursalId,
      customer_schema: record.customerSchema,
      cnro: record.cnro,
      customer_id: record.customerId,
      cvu: record.cvu,
      alias: record.alias,
    })
    .execute();
}

/** The account a credit arrived at: by its CVU, else by the provider's customer of it. */
export async function findAccountOfCredit(
  db: TenantExecutor,
  tenantId: number,
  provider: string,
  credit: Pick<ProviderCredit, 'account' | 'customerId'>,
): Promise<TransferAccountRow | undefined> {
  if (credit.account === null && credit.customerId === null) return undefined;
  return await inPublic(db)
    .selectFrom('portal_transfer_accounts')
    .select(['sucursal_id', 'customer_schema', 'cnro', 'customer_id', 'cvu', 'alias'])
    .where('tenant_id', '=', tenantId)
    .where('provider', '=', provider)
    .where((eb) =>
      eb.or([
        ...(credit.account === null ? [] : [eb('cvu', '=', credit.account)]),
        ...(credit.customerId === null ? [] : [eb('customer_id', '=', credit.customerId)]),
      ]),
    )
    .orderBy('id')
    .executeTakeFirst();
}

export interface CreditRow {
  id: number;
  tenant_id: number;
  provider: string;
  credit_id: string;
  monto: string;
  moneda: string;
  provider_status: string;
  estado: TransferCreditState;
  sucursal_id: number | null;
  customer_schema: string | null;
  cnro: number | null;
  recibo_id: string | null;
  a_cuenta: string | null;
  liquidada_at: Date | null;
  recibida_at: Date | null;
  email_sent_at: Date | null;
}

const CREDIT_COLUMNS = [
  'id',
  'tenant_id',
  'provider',
  'credit_id',
  'monto',
  'moneda',
  'provider_status',
  'estado',
  'sucursal_id',
  'customer_schema',
  'cnro',
  'recibo_id',
  'a_cuenta',
  'liquidada_at',
  'recibida_at',
  'email_sent_at',
] as const;

export interface NewCredit {
  tenantId: number;
  provider: string;
  credit: ProviderCredit;
  estado: TransferCreditState;
  motivo: string | null;
  detalle: string | null;
  account: TransferAccountRow | undefined;
  settledAt: Date | null;
}

/**
 * Records a credit once: the first of any number of webhooks, redeliveries, instances and
 * janitor runs inserts it, the others find it (undefined: it was there already).
 */
export async function insertCredit(
  db: TenantExecutor,
  row: NewCredit,
): Promise<CreditRow | undefined> {
  const { credit, account } = row;
  return await inPublic(db)
    .insertInto('portal_transfer_credits')
    .values({
      tenant_id: row.tenantId,
      provider: row.provider,
      credit_id: credit.creditId,
      trace_id: credit.traceId?.slice(0, 100) ?? null,
      cuenta: credit.account?.slice(0, 64) ?? null,
      provider_customer_id: credit.customerId?.slice(0, 64) ?? null,
      monto: credit.amount,
      moneda: credit.currency.slice(0, 3),
      recibida_at: credit.receivedAt,
      provider_status: credit.status,
      estado: row.estado,
      motivo: row.motivo,
      detalle: row.detalle,
      sucursal_id: account?.sucursal_id ?? null,
      customer_schema: account?.customer_schema ?? null,
      cnro: account?.cnro ?? null,
      ordenante_nombre: credit.payer.name?.slice(0, 200) ?? null,
      ordenante_cuit: credit.payer.cuit?.slice(0, 20) ?? null,
      ordenante_banco: credit.payer.bank?.slice(0, 200) ?? null,
      liquidada_at: row.settledAt,
    })
    .onConflict((conflict) => conflict.columns(['tenant_id', 'provider', 'credit_id']).doNothing())
    .returning(CREDIT_COLUMNS)
    .executeTakeFirst();
}

export async function findCredit(
  db: TenantExecutor,
  tenantId: number,
  provider: string,
  creditId: string,
): Promise<CreditRow | undefined> {
  return await inPublic(db)
    .selectFrom('portal_transfer_credits')
    .select(CREDIT_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('provider', '=', provider)
    .where('credit_id', '=', creditId)
    .executeTakeFirst();
}

export async function findCreditById(
  db: TenantExecutor,
  tenantId: number,
  id: number,
): Promise<CreditRow | undefined> {
  return await inPublic(db)
    .selectFrom('portal_transfer_credits')
    .select(CREDIT_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The credit's row, locked until the transaction ends. */
export async function lockCredit(
  trx: TenantTransaction,
  tenantId: number,
  id: number,
): Promise<CreditRow | undefined> {
  return await inPublic(trx)
    .selectFrom('portal_transfer_credits')
    .select(CREDIT_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export interface CreditChange {
  estado?: TransferCreditState;
  motivo?: string | null;
  detalle?: string | null;
  provider_status?: string;
  recibo_id?: string;
  a_cuenta?: string;
  liquidada_at?: Date;
  sucursal_id?: number;
  customer_schema?: string;
  cnro?: number;
  asignada_por?: string;
  email_sent_at?: Date;
}

export async function updateCredit(
  db: TenantExecutor,
  tenantId: number,
  id: number,
  change: CreditChange,
): Promise<void> {
  await inPublic(db)
    .updateTable('portal_transfer_credits')
    .set({ ...change, updated_at: sql<Date>`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

/** What the janitor already holds of these credits, so it writes only what changed. */
export async function findKnownCredits(
  db: TenantExecutor,
  tenantId: number,
  provider: string,
  creditIds: readonly string[],
): Promise<Map<string, { provider_status: string; liquidada_at: Date | null }>> {
  if (creditIds.length === 0) return new Map();
  const rows = await inPublic(db)
    .selectFrom('portal_transfer_credits')
    .select(['credit_id', 'provider_status', 'liquidada_at'])
    .where('tenant_id', '=', tenantId)
    .where('provider', '=', provider)
    .where('credit_id', 'in', creditIds)
    .execute();
  return new Map(rows.map((row) => [row.credit_id, row]));
}

/** Credits recorded but not applied yet (a ledger that refused, settings missing, a crash). */
export async function findPendingCreditIds(
  db: TenantExecutor,
  tenantId: number,
): Promise<number[]> {
  const rows = await inPublic(db)
    .selectFrom('portal_transfer_credits')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('estado', '=', 'pendiente')
    .orderBy('id')
    .limit(500)
    .execute();
  return rows.map((row) => row.id);
}

/** Receipts of credits whose e-mail was never marked sent, older than `before`. */
export async function findUnsentEmails(
  db: TenantExecutor,
  tenantId: number,
  before: Date,
): Promise<{ id: number; sucursal_id: number | null }[]> {
  return await inPublic(db)
    .selectFrom('portal_transfer_credits')
    .select(['id', 'sucursal_id'])
    .where('tenant_id', '=', tenantId)
    .where('estado', '=', 'aplicada')
    .where('email_sent_at', 'is', null)
    .where('updated_at', '<', before)
    .orderBy('id')
    .limit(500)
    .execute();
}

export async function findRegisteredWebhook(
  db: Kysely<TenantDatabase>,
  tenantId: number,
  provider: string,
): Promise<{ url: string; token_sha256: string } | undefined> {
  return await inPublic(db)
    .selectFrom('portal_transfer_webhooks')
    .select(['url', 'token_sha256'])
    .where('tenant_id', '=', tenantId)
    .where('provider', '=', provider)
    .executeTakeFirst();
}

export async function recordRegisteredWebhook(
  db: Kysely<TenantDatabase>,
  row: { tenantId: number; provider: string; url: string; tokenSha256: string; at: Date },
): Promise<void> {
  await inPublic(db)
    .insertInto('portal_transfer_webhooks')
    .values({
      tenant_id: row.tenantId,
      provider: row.provider,
      url: row.url,
      token_sha256: row.tokenSha256,
      registered_at: row.at,
    })
    .onConflict((conflict) =>
      conflict.columns(['tenant_id', 'provider']).doUpdateSet({
        url: row.url,
        token_sha256: row.tokenSha256,
        registered_at: row.at,
      }),
    )
    .execute();
}

/** A customer record's debts in the spec's FIFO order, and whether the record exists. */
export interface LedgerDebt {
  id: string;
  tipo: string;
  comprobante: string | null;
  nrocomp: string;
  saldo: string;
}
