import { createJwtGuard } from '../auth/guard.js';
import type { DoorDefinition } from './door.js';

/**
 * The customer door opened also to a pay link's token (docs/pay-links.md): the routes someone who
 * may only pay needs. Each route shows such a principal only what the link may see (its
 * `payLinkId`); a full session's token works here as everywhere.
 */
export const payerDoor: DoorDefinition = {
  scheme: {
    name: 'bearerAuth',
    definition: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
  },
  privateAnswers: true,
  open: (deps) => ({
    onRequest: [createJwtGuard(deps.tokens, deps.tenancy, deps.versions, deps.payLinks)],
    preHandler: [deps.perUserLimit],
  }),
};
