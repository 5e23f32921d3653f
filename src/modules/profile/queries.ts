import { inCustomerSchema } from '../../platform/db/executor.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';

/**
 * Updates the contact columns and answers the profile with its customer name and the e-mail it
 * replaced, in one round trip (the self-join reads the row as it was before this update).
 */
export function updateContact(
  tenant: TenantContext,
  portalUserId: string,
  changes: { email?: string; telefono?: string | null; updated_at: Date },
) {
  return inCustomerSchema(tenant.db, tenant)
    .with('u', (db) =>
      db
        .updateTable('portal_users')
        .from('portal_users as before')
        .set(changes)
        .whereRef('before.id', '=', 'portal_users.id')
        .where('portal_users.id', '=', portalUserId)
        .returning([
          'portal_users.cnro',
          'portal_users.email',
          'portal_users.telefono',
          'portal_users.last_login',
          'before.email as previous_email',
        ]),
    )
    .selectFrom('u')
    .innerJoin('ordcon as c', 'c.cnro', 'u.cnro')
    .select(['c.cnom', 'c.ccui', 'u.email', 'u.telefono', 'u.last_login', 'u.previous_email'])
    .executeTakeFirst();
}
