import { createStaffGuard, staffScope } from '../auth/staff-guard.js';
import type { DoorDefinition } from './door.js';

/**
 * A staff user of the business (docs/staff.md): a token of the ERP's administrative system,
 * RS256 with its own keys, never a customer's; then the limit per staff user, the token's tenant
 * and its role. Answers are never cached.
 */
export const staffDoor: DoorDefinition = {
  scheme: {
    name: 'staffAuth',
    definition: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        "A token of the ERP's administrative system: RS256 with its own key pair, aud portal-comercio, tenant_id, rol lectura|operador, at most 12 hours (docs/staff.md). A customer's token is refused.",
    },
  },
  privateAnswers: true,
  open: (deps) => ({
    onRequest: [createStaffGuard(deps.staffTokens, deps.tenancy)],
    preHandler: [deps.perStaffLimit, staffScope],
  }),
};
