import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { findDebtsOfCustomer } from '../../ledger/pending-debts.js';
import { LedgerConflictError, reverseReceipt, writeReceipt } from '../../ledger/receipts.js';
import type { Clock } from '../../platform/clock.js';
import type { TenantDatabase } from '../../platform/db/types.js';
import { centsToNumeric, numericToCents } from '../../platform/money.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import type { Tenancy, TenantContext } from '../../platform/tenancy/tenancy.js';
import type { DebtsHeldByPayments, LockCustomerPayments } from '../payments/index.js';
import { allocateCredit } from './allocation.js';
import type { ProviderCredit } from './providers/definition.js';
import {
  findAccountOfCredit,
  findCredit,
  findCreditById,
  insertCredit,
  lockCredit,
  updateCredit,
  type CreditRow,
} from './queries.js';
import type { TransferRail } from './settings.js';

/*
 * A credit's way (docs/transfers.md "A credit's way"): recorded once as the provider reports it
 * when read back, then applied in one transaction that writes its receipt as TX2 does; what cannot
 * be matched waits for a person; a rejection after the receipt voids it as a refund does.
 */

/** Why a credit waits for a person (`motivo` of `sin_cliente`, docs/transfers.md). */
export const UNMATCHED_REASONS = {
  cuenta_desconocida:
    'La transferencia llegó a una cuenta que el portal no asignó a ningún cliente.',
  moneda: 'La transferencia no es en pesos: el portal solo registra recibos en ARS.',
  cliente_inexistente: 'El cliente de la cuenta ya no existe en el sistema de gestión.',
} as const;

export type UnmatchedReason = keyof typeof UNMATCHED_REASONS;

/** What taking a credit in did (the `result` of the transfers' metrics and logs). */
export type IntakeOutcome =
  'applied' | 'already_recorded' | 'unmatched' | 'rejected' | 'reversed' | 'settled' | 'waiting';

export interface CreditsDeps {
  tenancy: Tenancy;
  calendar: TenantCalendar;
  clock: Clock;
  log: FastifyBaseLogger;
  lockCustomerPayments: LockCustomerPayments;
  debtsHeldByPayments: DebtsHeldByPayments;
  /** "Recibimos tu transferencia", queued after the receipt's commit; never throws. */
  queueEmail(tenantId: number, creditId: number, sucursalId: number): Promise<void>;
}

/** A tenant with its rail on, as the webhook and the janitor hold it. */
export interface RailTenant {
  tenantId: number;
  db: Kysely<TenantDatabase>;
  rail: TransferRail;
}

function conceptoOf(rail: TransferRail, creditId: string): string {
  return `Transferencia ${rail.label} ${creditId.slice(0, 60)} recibo `;
}

export function createCredits(deps: CreditsDeps) {
  const { tenancy, calendar, clock, log } = deps;

  /** The customer record's sucursal as a context, or undefined when it is gone. */
  async function customerTenant(
    tenantId: number,
    row: Pick<CreditRow, 'sucursal_id' | 'customer_schema'>,
  ): Promise<TenantContext | undefined> {
    if (row.sucursal_id === null) return undefined;
    const tenant = await tenancy.tryResolve(tenantId, row.sucursal_id);
    // A sucursal moved to another customer-data schema no longer holds this customer.
    return tenant && tenant.customerSchema === row.customer_schema ? tenant : undefined;
  }

  /**
   * Writes the receipt of a `pendiente` credit (docs/decisions.md #53): under the customer's lock
   * (the one iniciar takes, so no payment starts on these debts meanwhile) and the credit's row
   * lock, the debts read, the held ones skipped, the receipt written, the credit marked, in one
   * transaction. A ledger that changed under it leaves the credit pending for the janitor.
   */
  async function apply(
    owner: RailTenant,
    id: number,
    /** The credit's row as just recorded, which spares reading it again. */
    recorded?: CreditRow,
  ): Promise<IntakeOutcome> {
    const { tenantId, rail } = owner;
    const row = recorded ?? (await findCreditById(owner.db, tenantId, id));
    if (row?.estado !== 'pendiente') return 'already_recorded';
    const tenant = await customerTenant(tenantId, row);
    if (!tenant || row.cnro === null) {
      await updateCredit(owner.db, tenantId, id, {
        estado: 'sin_cliente',
        motivo: 'cliente_inexistente',
        detalle: UNMATCHED_REASONS.cliente_inexistente,
      });
      return 'unmatched';
    }
    const cnro = row.cnro;
    if (!rail.receipts) {
      log.warn(
        { tenantId },
        'transfer credit waits: portal.recibo.caja_schema or the cuenta_bancaria is not set',
      );
      return 'waiting';
    }
    const settings = rail.receipts;
    const today = await calendar.today(tenant);
    const now = clock.now();
    let outcome: IntakeOutcome;
    try {
      outcome = await tenant.db.transaction().execute(async function applyCredit(trx) {
        const locked = await lockCredit(trx, tenantId, id);
        if (locked?.estado !== 'pendiente') return 'already_recorded';
        await deps.lockCustomerPayments(trx, tenant, cnro);
        const debts = await findDebtsOfCustomer(trx, tenant, cnro);
        if (debts === undefined) {
          await updateCredit(trx, tenantId, id, {
            estado: 'sin_cliente',
            motivo: 'cliente_inexistente',
            detalle: UNMATCHED_REASONS.cliente_inexistente,
          });
          return 'unmatched';
        }
        const held = await deps.debtsHeldByPayments(trx, tenant, cnro);
        const allocation = allocateCredit(debts, held, numericToCents(locked.monto));
        await writeReceipt(
          trx,
          tenant,
          {
            id,
            cnro,
            monto: locked.monto,
            facturas: allocation.paid.map(({ debt, cents }) => ({
              id: debt.id,
              numero: debt.nrocomp,
              pago: cents / 100,
            })),
            gateway: null,
            gatewayPaymentId: null,
            concepto: conceptoOf(rail, locked.credit_id),
          },
          settings,
          {
            now,
            today,
            beforeNumbering: async function markCreditApplied(reciboId) {
              await updateCredit(trx, tenantId, id, {
                estado: 'aplicada',
                recibo_id: reciboId,
                a_cuenta: centsToNumeric(allocation.aCuentaCents),
                // With the payment e-mails off there is nothing to send: no job is queued, and
                // the janitor finds nothing unsent.
                ...(!rail.emailOn && { email_sent_at: now }),
              });
            },
          },
        );
        return 'applied';
      });
    } catch (error) {
      if (!(error instanceof LedgerConflictError)) throw error;
      // The ERP changed a debt between the read and the write: the next try reads it again.
      log.warn({ tenantId }, 'transfer credit not applied: the ledger changed; it stays pending');
      return 'waiting';
    }
    if (outcome === 'applied' && rail.emailOn) {
      await deps.queueEmail(tenantId, id, tenant.sucursalId);
    }
    return outcome;
  }

  /**
   * A credit the provider rejected after its receipt (docs/transfers.md): the receipt is voided
   * as a refund's is (docs/decisions.md #37) while the ERP has not used what it left as credit;
   * either way the credit is `revertida` and waits for a person.
   */
  async function reverse(owner: RailTenant, row: CreditRow): Promise<IntakeOutcome> {
    const { tenantId, rail } = owner;
    const tenant = await customerTenant(tenantId, row);
    const settings = rail.receipts;
    await owner.db.transaction().execute(async function reverseCredit(trx) {
      const locked = await lockCredit(trx, tenantId, row.id);
      if (locked?.estado !== 'aplicada') return;
      let detalle =
        'El proveedor rechazó la transferencia después de su recibo: el recibo quedó anulado y las deudas vuelven a estar pendientes.';
      let voided = false;
      if (tenant && settings && locked.recibo_id !== null) {
        const receipt = await trx
          .withSchema(tenant.customerSchema)
          .selectFrom('ordcta')
          .select(['saldo', 'anulado'])
          .where('id', '=', locked.recibo_id)
          .executeTakeFirst();
        const untouched =
          receipt !== undefined &&
          !receipt.anulado &&
          numericToCents(receipt.saldo) === numericToCents(locked.a_cuenta ?? '0');
        if (untouched) {
          await reverseReceipt(trx, tenant, locked.recibo_id, settings, {
            now: clock.now(),
            concepto: (nrocomp) =>
              `Transferencia ${rail.label} ${locked.credit_id.slice(0, 60)} rechazada, recibo ${nrocomp} anulado`,
          });
          voided = true;
        }
      }
      if (!voided) {
        detalle =
          'El proveedor rechazó la transferencia después de su recibo, y el sistema de gestión ya usó ese recibo: anulalo o compensalo a mano.';
      }
      await updateCredit(trx, tenantId, row.id, {
        estado: 'revertida',
        provider_status: 'rejected',
        motivo: voided ? 'recibo_anulado' : 'recibo_en_uso',
        detalle,
      });
    });
    return 'reversed';
  }

  /**
   * Takes in a credit as the provider reported it when read back (never a webhook's body,
   * docs/decisions.md #47): recorded once, then applied, settled or reversed by what it says.
   */
  async function intake(owner: RailTenant, credit: ProviderCredit): Promise<IntakeOutcome> {
    const { tenantId, db, rail } = owner;
    // A new credit is the common case (a webhook comes first): recorded first, read only when it
    // was there already.
    const account =
      credit.status === 'rejected'
        ? undefined
        : await findAccountOfCredit(db, tenantId, rail.provider, credit);
    const unmatched: UnmatchedReason | undefined =
      credit.status === 'rejected'
        ? undefined
        : credit.currency !== 'ARS'
          ? 'moneda'
          : account === undefined
            ? 'cuenta_desconocida'
            : undefined;
    const inserted = await insertCredit(db, {
      tenantId,
      provider: rail.provider,
      credit,
      estado:
        credit.status === 'rejected'
          ? 'rechazada'
          : unmatched === undefined
            ? 'pendiente'
            : 'sin_cliente',
      motivo: unmatched ?? null,
      detalle: unmatched === undefined ? null : UNMATCHED_REASONS[unmatched],
      account,
      settledAt: credit.status === 'settlement' ? clock.now() : null,
    });
    if (!inserted) {
      // Recorded before (a redelivery, the janitor, another instance): what it says now.
      const raced = await findCredit(db, tenantId, rail.provider, credit.creditId);
      return raced ? await follow(owner, raced, credit) : 'already_recorded';
    }
    if (inserted.estado === 'rechazada') return 'rejected';
    if (inserted.estado === 'sin_cliente') return 'unmatched';
    return await apply(owner, inserted.id, inserted);
  }

  /** A credit recorded before: what the provider says of it now. */
  async function follow(
    owner: RailTenant,
    known: CreditRow,
    credit: ProviderCredit,
  ): Promise<IntakeOutcome> {
    const { tenantId, db } = owner;
    if (credit.status === 'rejected') {
      if (known.estado === 'aplicada') return await reverse(owner, known);
      if (known.estado === 'pendiente' || known.estado === 'sin_cliente') {
        await updateCredit(db, tenantId, known.id, {
          estado: 'rechazada',
          provider_status: 'rejected',
        });
        return 'rejected';
      }
      return 'already_recorded';
    }
    if (credit.status === 'settlement' && known.liquidada_at === null) {
      // docs/transfers.md: a settlement marks the credit settled and never writes to the ledger.
      await updateCredit(db, tenantId, known.id, {
        provider_status: 'settlement',
        liquidada_at: clock.now(),
      });
      if (known.estado === 'pendiente') await apply(owner, known.id);
      return 'settled';
    }
    if (known.estado === 'pendiente') return await apply(owner, known.id);
    return 'already_recorded';
  }

  return { intake, apply, customerTenant };
}

export type Credits = ReturnType<typeof createCredits>;
