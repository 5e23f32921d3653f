import { inCustomerSchema } from '../../platform/db/executor.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';

/** The profile: the customer's name and identifier (ordcon), contact data, the reminders switch. */
export function findProfile(tenant: TenantContext, portalUserId: string) {
  return inCustomerSchema(tenant.db, tenant)
    .selectFrom('portal_users as u')
    .innerJoin('ordcon as c', 'c.cnro', 'u.cnro')
    .select(['c.cnom', 'c.ccui', 'u.email', 'u.telefono', 'u.last_login', 'u.avisos_vencimiento'])
    .where('u.id', '=', portalUserId)
    .executeTakeFirst();
}

/**
 * Updates the contact columns (and the reminders switch) and answers the profile with its customer name and the e-mail it
 * replaced, in one round trip (the self-join reads the row as it was before this update).
 */
export function updateContact(
  tenant: TenantContext,
  portalUserId: string,
  changes: {
    email?: string;
    telefono?: string | null;
    avisos_vencimiento?: boolean;
    updated_at: Date;
  },
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
          'portal_users.avisos_vencimiento',
          'before.email as previous_email',
        ]),
    )
    .selectFrom('u')
    .innerJoin('ordcon as c', 'c.cnro', 'u.cnro')
    .select([
      'c.cnom',
      'c.ccui',
      'u.email',
      'u.telefono',
      'u.last_login',
      'u.avisos_vencimiento',
      'u.previous_email',
    ])
    .executeTakeFirst();
}
