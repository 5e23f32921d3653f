import { deriveKey } from './secrets.js';

/**
 * The keys a process signs and seals with, each derived for one purpose from the deployment's
 * secret (PORTAL_JWT_SECRET). The platform holds the secret; a module asks for its purpose's key
 * and never sees the secret itself.
 */
export interface Keys {
  derive(purpose: string): Buffer;
}

export function createKeys(secret: string): Keys {
  return { derive: (purpose) => deriveKey(secret, purpose) };
}
