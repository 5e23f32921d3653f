import { Type } from 'typebox';

/** GET /healthz and GET /readyz: `{ success: true, data: { status } }`. */
export const HealthResponse = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ status: Type.String() }),
});
