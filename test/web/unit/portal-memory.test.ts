import { describe, expect, it } from 'vitest';
import type { Me } from '../../../web/src/api/types.js';
import { identityOf } from '../../../web/src/lib/identity.js';

const me = (dni_cuit: string): Me => ({
  portal_user_id: 'u',
  nombre: 'N',
  email: 'e@example.com',
  dni_cuit,
  telefono: null,
  tenant_id: 3,
  sucursal_id: 2,
  last_login: null,
  ingreso_anterior: null,
});

describe('the login form filled again', () => {
  it('takes the signed-in customer as the form asks for them: CUIT by its 11 digits, else DNI', () => {
    expect(identityOf(me('20304050'))).toEqual({
      tenantId: 3,
      sucursalId: 2,
      type: 'dni',
      identifier: '20304050',
    });
    expect(identityOf(me('27-28765431-1'))).toMatchObject({
      type: 'cuit',
      identifier: '27-28765431-1',
    });
    expect(identityOf(me('5123456')).type).toBe('dni');
  });
});
