import type { Clock } from '../../platform/clock.js';
import { assertThat } from '../../platform/errors.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { findUserProfile } from '../auth/queries.js';
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

export function createProfileService(deps: { clock: Clock }) {
  return {
    async get(tenant: TenantContext, portalUserId: string) {
      const row = await findUserProfile(tenant, portalUserId);
      assertThat(row, 'USER_NOT_FOUND', 'Usuario no encontrado');
      return present(row);
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
      return present(row);
    },
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
