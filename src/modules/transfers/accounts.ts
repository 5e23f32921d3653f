import { CompiledQuery } from 'kysely';
import type { TransferAccount } from '../../../contract/transfers.js';
import { inCustomerSchema } from '../../platform/db/executor.js';
import { AppError } from '../../platform/errors.js';
import { GatewayError } from '../../platform/providers/errors.js';
import { formatCuit, type Issuers } from '../../platform/tenancy/issuer.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { findAccountOfCustomer, insertAccount } from './queries.js';
import type { RailTenant } from './credits.js';
import type { TransferRails } from './settings.js';

/** What the route says when the provider fails: nothing was stored (docs/transfers.md). */
const PROVIDER_FAILED = 502;

/**
 * The customer's own account at the tenant's provider (docs/transfers.md "A customer's account").
 * It belongs to the customer record (its cnro in its customer-data schema), not to a portal
 * account. The first call assigns it under an advisory lock of that record, held while the
 * provider answers, so two requests on two instances assign one; the row is written only once
 * the provider assigned it.
 */
export function createTransferAccounts(deps: {
  rails: TransferRails;
  issuers: Issuers;
  /** The janitor's: marks the tenant for its rounds and registers the webhook (never throws). */
  railInUse(owner: RailTenant): Promise<void>;
}) {
  /** What the portal calls the customer at the provider: stable, and names no person. */
  function providerCustomerId(tenant: TenantContext, cnro: number): string {
    return `t${tenant.tenantId}-${tenant.customerSchema}-${cnro}`;
  }

  async function accountOf(tenant: TenantContext, portalUserId: string): Promise<TransferAccount> {
    const lookup = await deps.rails.railOf(tenant);
    if (!lookup.on) {
      throw new AppError(
        'TRANSFERENCIAS_NO_CONFIGURADAS',
        'La empresa no recibe transferencias por el portal',
      );
    }
    const { rail } = lookup;
    const [, user, issuer] = await Promise.all([
      // Side by side with the account's reads: the first CVU asked for turns the rounds on.
      deps.railInUse({ tenantId: tenant.tenantId, db: tenant.db, rail }).then(
        () => undefined,
        () => undefined,
      ),
      inCustomerSchema(tenant.db, tenant)
        .selectFrom('portal_users')
        .select('cnro')
        .where('id', '=', portalUserId)
        .executeTakeFirst(),
      deps.issuers.issuerOf(tenant.tenantId, tenant.db),
    ]);
    if (!user) throw new AppError('USER_NOT_FOUND', 'Usuario no encontrado');
    const record = {
      tenantId: tenant.tenantId,
      provider: rail.provider,
      customerSchema: tenant.customerSchema,
      cnro: user.cnro,
    };
    const answer = (account: { cvu: string; alias: string | null }): TransferAccount => ({
      cvu: account.cvu,
      alias: account.alias,
      titular: issuer.row?.razon_social ?? tenant.tenantName,
      cuit: issuer.cuit === null ? null : formatCuit(issuer.cuit),
      proveedor: rail.label,
    });
    const stored = await findAccountOfCustomer(tenant.db, record);
    if (stored) return answer(stored);

    return await tenant.db.transaction().execute(async function assignAccount(trx) {
      await trx.executeQuery(
        CompiledQuery.raw('SELECT pg_advisory_xact_lock(hashtext($1))', [
          `portal_transfer_account:${tenant.tenantId}:${tenant.customerSchema}:${user.cnro}`,
        ]),
      );
      // Whoever held the lock before may have assigned it.
      const assigned = await findAccountOfCustomer(trx, record);
      if (assigned) return answer(assigned);
      const customerId = providerCustomerId(tenant, user.cnro);
      let account;
      try {
        account = await rail.client.assignAccount(customerId);
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        throw new AppError(
          'GATEWAY_ERROR',
          'El proveedor de transferencias no respondió; probá de nuevo en unos minutos',
          { status: PROVIDER_FAILED, cause: error },
        );
      }
      await insertAccount(trx, {
        ...record,
        sucursalId: tenant.sucursalId,
        customerId,
        cvu: account.cvu,
        alias: account.alias,
      });
      return answer(account);
    });
  }

  return { accountOf };
}

export type TransferAccounts = ReturnType<typeof createTransferAccounts>;
