import type { Config } from '../config.js';
import type { Platform } from '../platform/assemble.js';
import type { ReportsClient } from '../platform/reports/client.js';

/**
 * What app.ts builds once for the modules (docs/architecture.md "A module's face"): the
 * platform's pieces, the configuration and the reports service's client. Each module's face
 * declares the part it takes (`Pick<Shared, …>`), builds its own services from it, registers its
 * jobs and routes, and gives back the few functions other modules may be given.
 */
export interface Shared extends Platform {
  config: Config;
  reports: ReportsClient;
  /** Whether the invoice PDF has its fair-use limit: always, but in a benchmark of its render. */
  invoicePdfFairUse: boolean;
}
