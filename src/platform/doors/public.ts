import type { DoorDefinition } from './door.js';

/**
 * No credential of the portal's: the route checks what it takes itself (a signed token in the
 * address, a gateway's signature, a reset code) or serves what anyone may see. Each public entry
 * of the route table says why (`why`).
 */
export const publicDoor: DoorDefinition = {
  privateAnswers: false,
  open: () => ({ onRequest: [], preHandler: [] }),
};
