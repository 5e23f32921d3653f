import type { Clock } from '../../platform/clock.js';
import { assertThat } from '../../platform/errors.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { EmailChangeNotices } from './email-change-notice.js';
import { findProfile, updateContact } from './queries.js';

interface ProfileRow {
  cnom: string;
  ccui: string;
  email: string;
  telefono: string | null;
  last_login: Date | null;
  avisos_vencimiento: boolean;
}

function present(row: ProfileRow) {
  return {
    nombre: row.cnom,
    dni_cuit: row.ccui,
    email: row.email,
    telefono: row.telefono,
    last_login: row.last_login?.toISOString() ?? null,
    avisos_vencimiento: row.avisos_vencimiento,
  };
}

export function createProfileService(deps: { clock: Clock; notices: EmailChangeNotices }) {
  return {
    async get(tenant: TenantContext, portalUserId: string) {
      const row = await findProfile(tenant, portalUserId);
      assertThat(row, 'USER_NOT_FOUND', 'Usuario no encontrado');
      return present(row);
    },

    async update(
      tenant: TenantContext,
      portalUserId: string,
      changes: {
        email?: string | undefined;
        telefono?: string | undefined;
        avisos_vencimiento?: boolean | undefined;
      },
    ) {
      const telefono = changes.telefono?.trim();
      const row = await updateContact(tenant, portalUserId, {
        ...(changes.email !== undefined && { email: changes.email.trim() }),
        ...(telefono !== undefined && { telefono: telefono === '' ? null : telefono }),
        // docs/reminders.md: the customer's own switch; the one-click link only turns it off.
        ...(changes.avisos_vencimiento !== undefined && {
          avisos_vencimiento: changes.avisos_vencimiento,
        }),
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
