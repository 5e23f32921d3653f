import { inCustomerSchema } from '../../platform/db/executor.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';

/** The portal user's customer number, when both the user and its ordcon row exist. */
export async function findCustomerNumber(
  tenant: TenantContext,
  portalUserId: string,
): Promise<number | undefined> {
  const row = await inCustomerSchema(tenant.db, tenant)
    .selectFrom('portal_users as u')
    .innerJoin('ordcon as c', 'c.cnro', 'u.cnro')
    .select('c.cnro')
    .where('u.id', '=', portalUserId)
    .executeTakeFirst();
  return row?.cnro;
}
