import type { Platform } from '../platform/assemble.js';
import type { ReportKind } from '../platform/metrics.js';
import type { ReportsClient } from '../platform/reports/client.js';

/**
 * What app.ts builds once for the modules (docs/architecture.md "A module's face"): the
 * platform's pieces and the reports service's client. Each module's face declares the part it
 * takes (`Pick<Shared, …>`) and the settings it reads of the deployment (its own type, filled by
 * src/module-settings.ts), builds its own services from them, registers its jobs and routes, and
 * gives back the few functions other modules may be given.
 */
export interface Shared extends Platform {
  reports: ReportsClient;
  /** The same client, its calls counted under another report's name (docs/metrics.md). */
  reportsCountedAs: (report: ReportKind) => ReportsClient;
}
