import type { Clock } from '../../platform/clock.js';
import { assertThat } from '../../platform/errors.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { PortalUsers } from '../auth/index.js';
import type { EmailChangeNotices } from './email-change-notice.js';
import { updateContact } from './queries.js';

interface ProfileRow {
  cnom: string;
  ccui: string;
  email: string;
  telefono: string | null;
  last_login: Date | null;
}

function present(row: ProfileRow) {
  return {
    nombre: row.cnom,
    dni_cuit: row.ccui,
    email: row.email,
    telefono: row.telefono,
    last_login: row.last_login?.toISOString() ?? null,
  };
}

export function createProfileService(deps: {
  clock: Clock;
  notices: EmailChangeNotices;
  /** Auth reads the user with its customer record (/auth/me); the profile shows it without ids. */
  users: Pick<PortalUsers, 'me'>;
}) {
  return {
    async get(tenant: TenantContext, portalUserId: string) {
      const { nombre, dni_cuit, email, telefono, last_login } = await deps.users.me(
        tenant,
        portalUserId,
      );
      return { nombre, dni_cuit, email, telefono, last_login };
    },

    async update(
      tenant: TenantContext,
      portalUserId: string,
      changes: { email?: string | undefined; telefono?: string | undefined },
    ) {
      const telefono = changes.telefono?.trim();
      const row = await updateContact(tenant, portalUserId, {
        ...(changes.email !== undefined && { email: changes.email.trim() }),
        ...(telefono !== undefined && { telefono: telefono === '' ? null : telefono }),
        updated_at: deps.clock.now(),
      });
      assertThat(row, 'USER_NOT_FOUND', 'Usuario no encontrado');
      if (row.previous_email.toLowerCase() !== row.email.toLowerCase()) {
        await deps.notices.announce(tenant, row.previous_email, row.email);
      }
      return present(row);
    },
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
