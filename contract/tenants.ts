import { Type } from 'typebox';
import { Envelope, MAX_INT4 } from './envelope.js';

export const TenantParams = Type.Object({
  tenant_id: Type.Integer({ minimum: 1, maximum: MAX_INT4 }),
});

export const TenantResponse = Envelope(
  Type.Object({
    id: Type.Integer({ description: 'The tenant_id' }),
    nombre: Type.String({ description: 'The tenant’s display name' }),
    sucursales: Type.Array(Type.Object({ id: Type.Integer(), nombre: Type.String() })),
  }),
);
