import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { createAudit, type Audit } from './audit.js';
import { createPayLinkStatus, type PayLinkStatus } from './auth/pay-links.js';
import { createSessionVersions, type SessionVersions } from './auth/session-versions.js';
import { systemClock, type TimerClock } from './clock.js';
import type { SystemDatabase } from './db/types.js';
import { openDoors } from './doors/index.js';
import { healthRoutes } from './http/health.js';
import { installHttp } from './http/install.js';
import { installRequestMetrics } from './http/request-metrics.js';
import { openWebClient } from './http/web-client.js';
import { createIdempotencyChecks } from './idempotency/http.js';
import { createIdempotencyPrune, scheduleIdempotencyPrune } from './idempotency/prune.js';
import { openInfrastructure } from './infrastructure.js';
import type { JobQueue } from './jobs.js';
import { createKeyLocks, type KeyLocks } from './key-locks.js';
import type { Lifetime } from './lifetime.js';
import type { Mailer } from './mail/mailer.js';
import { createMetrics, serveMetrics, type Metrics } from './metrics.js';
import type { Counter } from './rate-limit.js';
import { createKeys, type Keys } from './security/keys.js';
import { bcryptPasswords, type PasswordHasher } from './security/passwords.js';
import type { StaffKeySettings } from './security/staff-keys.js';
import { openStaffTokens } from './security/staff-tokens.js';
import { createAccessTokens, type AccessTokens } from './security/tokens.js';
import type { SettingsReader } from './settings/reader.js';
import type { TenantDirectory } from './tenancy/directory.js';
import type { Issuers } from './tenancy/issuer.js';
import type { Tenancy } from './tenancy/tenancy.js';
import type { TenantCalendar } from './tenancy/today.js';
import { createSucursalSchemas, type SucursalSchemas } from './tenancy/sucursal-schemas.js';

/*
 * The platform's wiring: what the modules share, opened once per app, each piece put into the
 * app's lifetime the moment it is open. app.ts only adds the modules between `openPlatform` and
 * `finish`.
 */

/** What the wiring reads of the configuration (config.ts fills it; the platform never reads it). */
export type PlatformSettings = Parameters<typeof openInfrastructure>[0] &
  Parameters<typeof installHttp>[1] &
  Parameters<typeof openWebClient>[0] & {
    jwtSecret: string;
    /** The staff door's keys (docs/staff.md); undefined: the door is closed. */
    staffKeys: StaffKeySettings | undefined;
    metricsPort: number | undefined;
    metricsHost: string;
    gatewayTimeoutMs: number;
  };

export interface PlatformOptions {
  clock?: TimerClock | undefined;
  passwords?: PasswordHasher | undefined;
  perUserMax?: number | undefined;
  jobPollingSeconds?: number | undefined;
  jobRetryDelaySeconds?: number | undefined;
  sessionVersionCacheMs?: number | undefined;
  print?: ((text: string) => void) | undefined;
}

/** The pieces every module may use (each module's face says which it takes). */
export interface Platform {
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
  /** Keys derived from the deployment's secret, one per purpose: no module sees the secret. */
  keys: Keys;
  passwords: PasswordHasher;
  sessionVersions: SessionVersions;
  /** Whether a pay link still lets its tokens in; forget a link revoked here. */
  payLinks: PayLinkStatus;
  calendar: TenantCalendar;
  /** Each tenant's sucursales and their customer-data schemas, for reads that span them. */
  sucursales: SucursalSchemas;
  /** What a module opens beyond these goes here, to be closed with the app. */
  lifetime: Lifetime;
  /** Whether the API serves the web client (which then owns /pagos/resultado). */
  servesWebClient: boolean;
}

export async function openPlatform(
  app: FastifyInstance,
  settings: PlatformSettings,
  options: PlatformOptions,
  lifetime: Lifetime,
): Promise<{ platform: Platform; finish: () => Promise<void> }> {
  const clock = options.clock ?? systemClock;
  const log = app.log;
  const metrics = createMetrics();
  installRequestMetrics(app, metrics);
  // The web client to serve (docs/web.md): a PORTAL_WEB_DIR without index.html stops the start.
  const webClient = await openWebClient(settings, {
    observePage: (kind, outcome) => metrics.webPage(kind, outcome),
  });
  if (webClient) log.info({ dir: webClient.dir }, 'serving the web client');
  const infrastructure = await openInfrastructure(settings, {
    clock,
    log,
    lifetime,
    jobPollingSeconds: options.jobPollingSeconds ?? 2,
    jobRetryDelaySeconds: options.jobRetryDelaySeconds ?? 15,
    print: options.print ?? ((text) => process.stdout.write(text)),
  });
  const { core, redis, redisOutage, jobs, mailer } = infrastructure;
  const { systemDb, tenancy } = core;
  app.decorate('systemDb', systemDb);
  app.decorate('tenancy', tenancy);
  app.decorate('outbox', mailer);
  app.decorate('webClientDir', webClient?.dir);
  app.decorate('metricsUrl', undefined);

  const limits = await installHttp(app, settings, {
    redis,
    redisOutage,
    clock,
    // A tenant's page carries its name from the first paint (the directory's cached listing).
    fallback:
      webClient &&
      ((request, reply) =>
        webClient.serve(request, reply, async (id) => (await core.directory.find(id))?.nombre)),
    perUserMax: options.perUserMax,
  });
  const tokens = createAccessTokens(settings.jwtSecret, clock);
  const sessionVersions = await createSessionVersions({
    redis,
    namespace: settings.redisKeyPrefix,
    log,
    ...(options.sessionVersionCacheMs !== undefined && { cacheMs: options.sessionVersionCacheMs }),
  });
  lifetime.add('session versions', () => sessionVersions.close());
  const payLinks = createPayLinkStatus({ systemDb, clock });
  // Before any route: each route's declaration attaches its door's checks (declare-route.ts).
  app.decorate('routeChecks', {
    doors: openDoors({
      tokens,
      tenancy,
      versions: sessionVersions,
      payLinks,
      perUserLimit: limits.perUser,
      staffTokens: await openStaffTokens(settings.staffKeys, { clock, log }),
      perStaffLimit: limits.perStaff,
      systemDb,
    }),
    idempotency: createIdempotencyChecks({
      systemDb,
      clock,
      log,
      lockTtlMs: Math.max(30_000, 4 * settings.gatewayTimeoutMs),
    }),
  });
  healthRoutes(app, systemDb);
  await scheduleIdempotencyPrune(jobs, createIdempotencyPrune({ systemDb, tenancy, clock, log }));
  const platform: Platform = {
    clock,
    log,
    metrics,
    systemDb,
    tenancy,
    settings: core.settings,
    issuers: core.issuers,
    directory: core.directory,
    jobs,
    mailer,
    counter: limits.counter,
    locks: createKeyLocks({
      redis,
      namespace: settings.redisKeyPrefix,
      clock,
      outage: redisOutage,
    }),
    audit: createAudit(log),
    tokens,
    keys: createKeys(settings.jwtSecret),
    passwords: options.passwords ?? bcryptPasswords,
    sessionVersions,
    payLinks,
    calendar: core.calendar,
    sucursales: createSucursalSchemas({ clock }),
    lifetime,
    servesWebClient: webClient !== undefined,
  };

  /** After the modules: the metrics listener. */
  async function finish(): Promise<void> {
    // Its own listener, never the public port (docs/metrics.md); read at scrape time, so idle costs nothing.
    if (settings.metricsPort !== undefined) {
      const listener = await serveMetrics(metrics, {
        host: settings.metricsHost,
        port: settings.metricsPort,
        tenantPools: () => core.pools.stats(),
        jobQueues: () => jobs.backlog(),
      });
      app.metricsUrl = listener.url;
      lifetime.add('metrics listener', () => listener.close());
    }
  }

  return { platform, finish };
}
