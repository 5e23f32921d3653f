import { createJwtGuard } from '../auth/guard.js';
import type { DoorDefinition } from './door.js';

/**
 * A customer's access token (docs/api.md "Authentication"): `Authorization: Bearer`, its
 * signature, expiry and claims, the tenant and the account still there, the session it belongs
 * to still current; then the per-user limit. Answers are never cached.
 */
export const customerDoor: DoorDefinition = {
  scheme: {
    name: 'bearerAuth',
    definition: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
  },
  privateAnswers: true,
  open: (deps) => ({
    onRequest: [createJwtGuard(deps.tokens, deps.tenancy, deps.versions)],
    preHandler: [deps.perUserLimit],
  }),
};
