import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Audit } from '../platform/audit.js';
import type { SessionVersions } from '../platform/auth/session-versions.js';
import type { TimerClock } from '../platform/clock.js';
import type { SystemDatabase } from '../platform/db/types.js';
import type { JobQueue } from '../platform/jobs.js';
import type { Lifetime } from '../platform/lifetime.js';
import type { Mailer } from '../platform/mail/mailer.js';
import type { Metrics } from '../platform/metrics.js';
import type { SettingsReader } from '../platform/settings/reader.js';
import type { KeyLocks } from '../platform/key-locks.js';
import type { Counter } from '../platform/rate-limit.js';
import type { PasswordHasher } from '../platform/security/passwords.js';
import type { AccessTokens } from '../platform/security/tokens.js';
import type { TenantDirectory } from '../platform/tenancy/directory.js';
import type { Issuers } from '../platform/tenancy/issuer.js';
import type { Tenancy } from '../platform/tenancy/tenancy.js';
import type { TenantCalendar } from '../platform/tenancy/today.js';
import type { ReportsClient } from '../reports/client.js';

/**
 * What app.ts builds once and every module's face receives (docs/architecture.md "A module's
 * face"): the routes' two scopes and the shared pieces. A module builds its own services from
 * these, registers its jobs and routes, and gives back the few functions other modules may call.
 */
export interface Shared {
  /**
   * Declares protected routes: `declare` runs inside the protected scope, whose hooks keep
   * answers private, check the access token and the per-user limit before any route declared
   * there (public routes go on the app itself).
   */
  protectedRoutes(declare: (authed: FastifyInstance) => void): void;
  config: Config;
  clock: TimerClock;
  log: FastifyBaseLogger;
  metrics: Metrics;
  systemDb: Kysely<SystemDatabase>;
  tenancy: Tenancy;
  /** The tenants' `ini` settings (platform/settings): the only reader of them. */
  settings: SettingsReader;
  /** Each tenant's issuer (public.empfiscal), read once a minute: its CUIT and its invoices'. */
  issuers: Issuers;
  /** Active tenants' names and sucursales (the public tenant listing). */
  directory: TenantDirectory;
  jobs: JobQueue;
  mailer: Mailer;
  /** Rate-limit counters (Redis when configured), for budgets of a module's own. */
  counter: Counter;
  /** Keys one holder at a time (Redis when configured), e.g. one statement PDF per customer. */
  locks: KeyLocks;
  audit: Audit;
  tokens: AccessTokens;
  passwords: PasswordHasher;
  sessionVersions: SessionVersions;
  calendar: TenantCalendar;
  reports: ReportsClient;
  /** What a module opens beyond these goes here, to be closed with the app. */
  lifetime: Lifetime;
  /** Whether the API serves the web client (which then owns /pagos/resultado). */
  servesWebClient: boolean;
  /** Whether the invoice PDF has its fair-use limit: always, but in a benchmark of its render. */
  invoicePdfFairUse: boolean;
}
