/**
 * Who a login form is filled for (never a password), as portal-memory.ts keeps it for the tab.
 * Pure, tested in test/web/unit/portal-memory.test.ts.
 */
import type { Me } from '../api/types.js';
import { digitsOf, type IdentifierType } from './validation.js';

export interface RememberedIdentity {
  tenantId: number;
  sucursalId: number;
  type: IdentifierType;
  identifier: string;
}

/** The signed-in customer as the login form asks for them (`dni_cuit` as the ERP stores it). */
export function identityOf(me: Me): RememberedIdentity {
  return {
    tenantId: me.tenant_id,
    sucursalId: me.sucursal_id,
    type: digitsOf(me.dni_cuit).length === 11 ? 'cuit' : 'dni',
    identifier: me.dni_cuit,
  };
}
