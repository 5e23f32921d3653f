import type { ReceiptTransfer } from '../../ledger/receipt-document.js';
import { inPublic } from '../../platform/db/executor.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { transferProvider } from './providers/table.js';

/**
 * Which of these receipts a bank transfer produced, by receipt id (lower case), with who sent it
 * and what it left as credit: the receipts list, its PDF and the e-mail show them as transfers.
 * One statement, by the credits' receipt index.
 */
export async function transfersOfReceipts(
  tenant: Pick<TenantContext, 'tenantId' | 'db'>,
  reciboIds: readonly string[],
): Promise<ReadonlyMap<string, ReceiptTransfer>> {
  if (reciboIds.length === 0) return new Map();
  const rows = await inPublic(tenant.db)
    .selectFrom('portal_transfer_credits')
    .select([
      'recibo_id',
      'provider',
      'credit_id',
      'ordenante_nombre',
      'ordenante_banco',
      'a_cuenta',
    ])
    .where('tenant_id', '=', tenant.tenantId)
    .where(
      'recibo_id',
      'in',
      reciboIds.map((id) => id.toLowerCase()),
    )
    .execute();
  const found = new Map<string, ReceiptTransfer>();
  for (const row of rows) {
    if (row.recibo_id === null) continue;
    found.set(row.recibo_id.toLowerCase(), {
      proveedor: transferProvider(row.provider)?.label ?? row.provider,
      operacion: row.credit_id,
      ordenante: row.ordenante_nombre,
      banco: row.ordenante_banco,
      a_cuenta: row.a_cuenta ?? '0.00',
    });
  }
  return found;
}

export type TransfersOfReceipts = typeof transfersOfReceipts;
