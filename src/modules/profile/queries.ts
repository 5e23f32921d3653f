import type { TenantContext } from '../../platform/tenancy/tenancy.js';

/** Updates the contact columns and answers the profile with its customer name, in one round trip. */
export function updateContact(
  tenant: TenantContext,
  portalUserId: string,
  changes: { email?: string; telefono?: string | null; updated_at: Date },
) {
  return tenant.db
    .withSchema(tenant.customerSchema)
    .with('u', (db) =>
      db
        .updateTable('portal_users')
        .set(changes)
        .where('id', '=', portalUserId)
        .returning(['cnro', 'email', 'telefono', 'last_login']),
    )
    .selectFrom('u')
    .innerJoin('ordcon as c', 'c.cnro', 'u.cnro')
    .select(['c.cnom', 'c.ccui', 'u.email', 'u.telefono', 'u.last_login'])
    .executeTakeFirst();
}
