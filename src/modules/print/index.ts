import type { FastifyInstance } from 'fastify';
import type { Shared } from '../shared.js';
import { createPrintConfigService } from './config-service.js';
import { printCertificateRoutes, printRoutes } from './routes.js';
import { printSignerFor } from './signer.js';

/** Its command (`cli qz keygen`), for src/cli.ts's table. */
export { printCommands, type KeygenSettings } from './keygen-command.js';
/** The development defaults' key pair (src/dev) and the QZ bench. */
export { findKeyFiles, writePrintAgentKeyPair } from './keys.js';

/** What the print agent reads of the deployment: the QZ pair's files (QZ_*), when set. */
export interface PrintSettings {
  qzPrivateKeyPath: string | undefined;
  qzCertificatePath: string | undefined;
}

/**
 * The local print agent, QZ Tray (docs/decisions.md #39 and #40): its certificate (public), the
 * signing of print requests and the per-user print configurations. A bad key stops the start,
 * naming it.
 */
export async function registerPrint(
  app: FastifyInstance,
  shared: Pick<Shared, 'clock' | 'log'>,
  settings: PrintSettings,
): Promise<void> {
  const signer = await printSignerFor(settings, (message) => shared.log.warn(message));
  printCertificateRoutes(app, { signer });
  printRoutes(app, {
    signer,
    printConfigs: createPrintConfigService({ clock: shared.clock }),
  });
}
