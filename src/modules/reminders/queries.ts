import { sql } from 'kysely';
import { DEBT_TYPES } from '../../ledger/pending-debts.js';
import { fiscalNameList, originalAmount } from '../../ledger/documents.js';
import type { TenantExecutor, TenantTransaction } from '../../platform/db/executor.js';
import { isSchemaName } from '../../platform/db/identifiers.js';
import type { DateString } from '../../platform/db/types.js';
import { customerSchemaFor } from '../../platform/tenancy/schema-names.js';
import type { Stage } from './schedule.js';

/*
 * public.portal_debt_reminders (tenant/0013): one row per debt and stage, claimed by the run and
 * marked sent by the e-mail's job; and portal_users.avisos_vencimiento (customer/0008), which the
 * run reads and the one-click unsubscribe writes. A debt is pending as src/ledger/pending-debts.ts
 * says (docs/erp.md "ordcta"): an invoice or debit note with a balance left, not voided. The SQL
 * here repeats that predicate because it runs as one set-based statement per schema.
 */

/** Each customer-data schema of the tenant, with the sucursal its e-mails and links name. */
export async function findCustomerSchemas(
  db: TenantExecutor,
): Promise<{ customerSchema: string; sucursalId: number }[]> {
  const sucursales = await db
    .withSchema('public')
    .selectFrom('sucursales')
    .select(['id', 'clientes_centralizados'])
    .orderBy('id')
    .execute();
  // Centralized sucursales share `public`: their customers get one e-mail, naming the first.
  const schemas = new Map<string, number>();
  for (const sucursal of sucursales) {
    const schema = customerSchemaFor(sucursal);
    if (isSchemaName(schema) && !schemas.has(schema)) schemas.set(schema, sucursal.id);
  }
  return [...schemas].map(([customerSchema, sucursalId]) => ({ customerSchema, sucursalId }));
}

/**
 * Who gets what, in one statement over a customer-data schema (docs/reminders.md "Who gets
 * what"): every pending debt with a due date that reached one of `stages` on a day from `from` to
 * `to`, of a portal user with an e-mail and reminders on, not held by a payment in flight
 * (`held`) and whose stage was not sent yet. Each is claimed (inserted, unsent) unless it already
 * was: an earlier run's unsent claim (a crash, a queue that failed) comes back here and is sent
 * now. Answers each recipient with how many stages they have waiting.
 */
export interface ClaimInput {
  customerSchema: string;
  stages: readonly Stage[];
  from: DateString;
  to: DateString;
  held: ReadonlySet<string>;
  now: Date;
}

/** The statement of `claimDueStages`, unexecuted (the benchmark explains it). */
export function claimDueStagesQuery(input: ClaimInput) {
  const { customerSchema, stages, from, to, now } = input;
  return sql<{ portal_user_id: string; stages: number }>`
    WITH stages AS (
      SELECT * FROM unnest(${stages.map((stage) => stage.key)}::text[],
                           ${stages.map((stage) => stage.shift)}::int[]) AS s (stage, shift)
    ),
    candidates AS (
      SELECT u.id AS portal_user_id, o.id AS ordcta_id, s.stage, o.vencimiento - s.shift AS stage_date
        FROM stages s
        JOIN ${sql.id(customerSchema, 'ordcta')} o
          ON o.vencimiento BETWEEN ${from}::date + s.shift AND ${to}::date + s.shift
        JOIN ${sql.id(customerSchema, 'portal_users')} u ON u.cnro = o.cnro
       WHERE o.tipo = ANY(${[...DEBT_TYPES]}::text[]) AND o.saldo > 0 AND NOT o.anulado
         AND u.avisos_vencimiento AND btrim(u.email) <> ''
         AND NOT (o.id = ANY(${[...input.held]}::uuid[]))
         AND NOT EXISTS (
           SELECT 1 FROM public.portal_debt_reminders sent
            WHERE sent.ordcta_id = o.id AND sent.stage = s.stage AND sent.sent_at IS NOT NULL
         )
    ),
    claimed AS (
      INSERT INTO public.portal_debt_reminders
             (ordcta_id, stage, customer_schema, portal_user_id, stage_date, claimed_at)
      SELECT ordcta_id, stage, ${customerSchema}, portal_user_id, stage_date, ${now}
        FROM candidates
      ON CONFLICT (ordcta_id, stage) DO NOTHING
    )
    SELECT portal_user_id, count(*)::int AS stages FROM candidates GROUP BY portal_user_id
  `;
}

export async function claimDueStages(
  db: TenantExecutor,
  input: ClaimInput,
): Promise<{ portal_user_id: string; stages: number }[]> {
  if (input.stages.length === 0) return [];
  const { rows } = await claimDueStagesQuery(input).execute(db);
  return rows;
}

/** A recipient as the e-mail needs them; undefined when the account is gone. */
export async function findRecipient(
  db: TenantExecutor,
  customerSchema: string,
  portalUserId: string,
): Promise<
  | {
      email: string;
      avisos_vencimiento: boolean;
      cnro: number;
      nombre: string;
      created_micros: string;
    }
  | undefined
> {
  const { rows } = await sql<{
    email: string;
    avisos_vencimiento: boolean;
    cnro: number;
    nombre: string | null;
    created_micros: string;
  }>`
    SELECT u.email, u.avisos_vencimiento, u.cnro, c.cnom AS nombre,
           (extract(epoch FROM u.created_at) * 1000000)::bigint::text AS created_micros
      FROM ${sql.id(customerSchema, 'portal_users')} u
      LEFT JOIN ${sql.id(customerSchema, 'ordcon')} c ON c.cnro = u.cnro
     WHERE u.id = ${portalUserId}
  `.execute(db);
  const row = rows[0];
  return row && { ...row, nombre: row.nombre ?? '' };
}

/** A claimed stage as the e-mail reads it, with its debt as the ledger has it now. */
export interface ClaimedStage {
  ordcta_id: string;
  stage: string;
  tipo: string | null;
  comprobante: string | null;
  nrocomp: string | null;
  /** The debt's fiscal row, when it has one: its name's letter and number (documents.ts). */
  tipo_cbte: number | null;
  letra: string | null;
  punto_venta: number | null;
  numero: number | null;
  vencimiento: DateString | null;
  debe: string | null;
  /** What the debt was issued for, numeric text: more than `debe` once part of it was paid. */
  importe: string | null;
  cnro: number | null;
  /** The debt is still pending, dated, and the customer's (paid or voided since: not sent). */
  pending: boolean;
}

/**
 * The recipient's unsent claims, locked until the caller's transaction ends: a second job for the
 * same recipient (two runs, two instances) waits here, and then finds them sent and gets nothing.
 * Only the claim rows are locked, never the ledger's.
 */
export async function lockUnsentStages(
  trx: TenantTransaction,
  customerSchema: string,
  portalUserId: string,
  fiscal: boolean,
): Promise<ClaimedStage[]> {
  // Each debt's fiscal row names it (contract/names.ts), where the schema has the ERP's tables.
  const fiscalRow = fiscal
    ? sql`LEFT JOIN ${sql.id(customerSchema, 'cbtefis')} f ON f.ordcta_id = o.id`
    : sql``;
  const { rows } = await sql<ClaimedStage>`
    SELECT r.ordcta_id, r.stage, o.tipo, o.comprobante, o.nrocomp, ${fiscalNameList(fiscal)},
           o.vencimiento::text AS vencimiento, o.debe::text AS debe,
           CASE WHEN o.id IS NULL THEN NULL ELSE ${originalAmount(customerSchema)} END AS importe,
           o.cnro,
           coalesce(o.tipo = ANY(${[...DEBT_TYPES]}::text[]) AND o.saldo > 0 AND NOT o.anulado
                    AND o.vencimiento IS NOT NULL, false) AS pending
      FROM public.portal_debt_reminders r
      LEFT JOIN ${sql.id(customerSchema, 'ordcta')} o ON o.id = r.ordcta_id
      ${fiscalRow}
     WHERE r.portal_user_id = ${portalUserId} AND r.customer_schema = ${customerSchema}
       AND r.sent_at IS NULL
     ORDER BY o.vencimiento NULLS LAST, o.fecha, o.nrocomp, r.stage
       FOR UPDATE OF r
  `.execute(trx);
  return rows;
}

type StageKey = Pick<ClaimedStage, 'ordcta_id' | 'stage'>;

function keyArrays(keys: readonly StageKey[]) {
  return {
    ids: keys.map((key) => key.ordcta_id),
    stages: keys.map((key) => key.stage),
  };
}

/** The e-mail went out: its stages are sent for ever, in the transaction holding their locks. */
export async function markStagesSent(
  trx: TenantTransaction,
  keys: readonly StageKey[],
  now: Date,
): Promise<void> {
  if (keys.length === 0) return;
  const { ids, stages } = keyArrays(keys);
  await sql`
    UPDATE public.portal_debt_reminders r SET sent_at = ${now}
      FROM unnest(${ids}::uuid[], ${stages}::text[]) AS k (ordcta_id, stage)
     WHERE r.ordcta_id = k.ordcta_id AND r.stage = k.stage AND r.sent_at IS NULL
  `.execute(trx);
}

/**
 * Claims that will not be sent (the debt was paid or is held by a payment, the user turned
 * reminders off or has no e-mail): dropped unsent, so a later run inside the window claims them
 * again if they apply again. A sent row is never dropped.
 */
export async function releaseStages(trx: TenantTransaction, keys: readonly StageKey[]) {
  if (keys.length === 0) return;
  const { ids, stages } = keyArrays(keys);
  await sql`
    DELETE FROM public.portal_debt_reminders r
     USING unnest(${ids}::uuid[], ${stages}::text[]) AS k (ordcta_id, stage)
     WHERE r.ordcta_id = k.ordcta_id AND r.stage = k.stage AND r.sent_at IS NULL
  `.execute(trx);
}

/**
 * The one-click unsubscribe: reminders off for the account the token names, only if it is the
 * same account (its creation time in microseconds). Answers whether it found it.
 */
export async function turnRemindersOff(
  db: TenantExecutor,
  customerSchema: string,
  subject: { portalUserId: string; createdMicros: string },
  now: Date,
): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    UPDATE ${sql.id(customerSchema, 'portal_users')}
       SET avisos_vencimiento = false, updated_at = ${now}
     WHERE id = ${subject.portalUserId}
       AND (extract(epoch FROM created_at) * 1000000)::bigint = ${subject.createdMicros}::bigint
    RETURNING id
  `.execute(db);
  return rows.length > 0;
}
