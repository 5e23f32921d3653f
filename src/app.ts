import Fastify, { type FastifyInstance } from 'fastify';
import type { BuildOptions } from './app-options.js';
import type { Config } from './config.js';
import { registerAccount } from './modules/account/index.js';
import { registerAuth } from './modules/auth/index.js';
import { registerCoupons } from './modules/coupons/index.js';
import { registerInvoices } from './modules/invoices/index.js';
import { paymentsOfReceipts, registerPayments } from './modules/payments/index.js';
import { registerPrint } from './modules/print/index.js';
import { registerProfile } from './modules/profile/index.js';
import { registerReceipts } from './modules/receipts/index.js';
import { registerReminders } from './modules/reminders/index.js';
import type { Shared } from './modules/shared.js';
import { registerStatement } from './modules/statement/index.js';
import { registerTenants } from './modules/tenants/index.js';
import { createAudit } from './platform/audit.js';
import { registerProtectedScope } from './platform/auth/protected-scope.js';
import { createSessionVersions } from './platform/auth/session-versions.js';
import { systemClock } from './platform/clock.js';
import { healthRoutes } from './platform/http/health.js';
import { installHttp } from './platform/http/install.js';
import { installRequestMetrics } from './platform/http/request-metrics.js';
import { httpServerOptions } from './platform/http/server-options.js';
import { openWebClient } from './platform/http/web-client.js';
import { createIdempotencyPrune, scheduleIdempotencyPrune } from './platform/idempotency/prune.js';
import { openInfrastructure } from './platform/infrastructure.js';
import { createKeyLocks } from './platform/key-locks.js';
import { createLifetime, type Lifetime } from './platform/lifetime.js';
import { createMetrics, serveMetrics } from './platform/metrics.js';
import { bcryptPasswords } from './platform/security/passwords.js';
import { createAccessTokens } from './platform/security/tokens.js';
import { createIssuers } from './platform/tenancy/issuer.js';
import { createTenantCalendar } from './platform/tenancy/today.js';
import { createReportsClient } from './reports/client.js';

export type { BuildOptions };

/** The whole portal as a Fastify instance, not listening: server.ts listens, tests inject. */
export async function buildApp(
  config: Config,
  options: BuildOptions = {},
): Promise<FastifyInstance> {
  const { databaseUrl } = config;
  if (databaseUrl === undefined) {
    throw new Error('buildApp needs config.databaseUrl (server.ts starts the embedded database)');
  }
  const app = Fastify(httpServerOptions(config, options));
  // Before any plugin or route, so that it sees them all.
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  const lifetime = createLifetime(app.log);
  app.addHook('onClose', () => lifetime.closeAll());
  try {
    await assemble(app, { ...config, databaseUrl }, options, lifetime);
  } catch (error) {
    await lifetime.closeAll();
    throw error;
  }
  return app;
}

/** The modules, in the order they register (docs/architecture.md "A module's face"). */
async function registerModules(app: FastifyInstance, shared: Shared): Promise<void> {
  registerTenants(app, shared);
  const { users } = await registerAuth(app, shared);
  await registerProfile(app, shared);
  const { pendingDebts, partialPayments } = await registerPayments(app, shared, { users });
  registerAccount(app, shared, { pendingDebts, partialPayments });
  registerReceipts(app, shared, { paymentsOfReceipts });
  registerStatement(app, shared);
  registerInvoices(app, shared);
  registerCoupons(app, shared);
  await registerPrint(app, shared);
  await registerReminders(app, shared);
}

/** The shared pieces, then the modules; what it opens goes into `lifetime` the moment it is open. */
async function assemble(
  app: FastifyInstance,
  config: Config & { databaseUrl: string },
  options: BuildOptions,
  lifetime: Lifetime,
): Promise<void> {
  const clock = options.clock ?? systemClock;
  const log = app.log;
  const metrics = createMetrics();
  installRequestMetrics(app, metrics);
  // The web client to serve (docs/web.md): a PORTAL_WEB_DIR without index.html stops the start.
  const webClient = await openWebClient(config);
  if (webClient) log.info({ dir: webClient.dir }, 'serving the web client');
  const { standalone, redis, redisOutage, jobs, mailer, settings } = await openInfrastructure(
    config,
    {
      clock,
      log,
      lifetime,
      jobPollingSeconds: options.jobPollingSeconds ?? 2,
      jobRetryDelaySeconds: options.jobRetryDelaySeconds ?? 15,
      print: options.print ?? ((text) => process.stdout.write(text)),
    },
  );
  const { systemDb, tenancy } = standalone;
  app.decorate('config', config);
  app.decorate('systemDb', systemDb);
  app.decorate('tenancy', tenancy);
  app.decorate('outbox', mailer);
  app.decorate('webClientDir', webClient?.dir);
  app.decorate('metricsUrl', undefined);

  const limits = await installHttp(app, config, {
    redis,
    redisOutage,
    clock,
    // A tenant's page carries its name from the first paint (the directory's cached listing).
    fallback:
      webClient &&
      ((request, reply) =>
        webClient.serve(
          request,
          reply,
          async (id) => (await standalone.directory.find(id))?.nombre,
        )),
    protectedRoutesMax: options.protectedRoutesMax,
  });
  const tokens = createAccessTokens(config.jwtSecret, clock);
  const sessionVersions = await createSessionVersions({
    redis,
    namespace: config.redisKeyPrefix,
    log,
    ...(options.sessionVersionCacheMs !== undefined && { cacheMs: options.sessionVersionCacheMs }),
  });
  lifetime.add('session versions', () => sessionVersions.close());
  healthRoutes(app, systemDb);
  await scheduleIdempotencyPrune(jobs, createIdempotencyPrune({ systemDb, tenancy, clock, log }));
  const protectedRoutes: ((authed: FastifyInstance) => void)[] = [];
  await registerModules(app, {
    protectedRoutes: (declare) => protectedRoutes.push(declare),
    config,
    clock,
    log,
    metrics,
    systemDb,
    tenancy,
    settings,
    issuers: createIssuers(clock),
    directory: standalone.directory,
    jobs,
    mailer,
    counter: limits.counter,
    locks: createKeyLocks({ redis, namespace: config.redisKeyPrefix, clock, outage: redisOutage }),
    audit: createAudit(log),
    tokens,
    passwords: options.passwords ?? bcryptPasswords,
    sessionVersions,
    calendar: createTenantCalendar(clock, settings),
    reports: createReportsClient({
      url: config.reportsUrl,
      secret: config.reportsServiceSecret,
      timeoutMs: config.reportsTimeoutMs,
      metrics,
    }),
    lifetime,
    servesWebClient: webClient !== undefined,
    invoicePdfFairUse: options.invoicePdfFairUse ?? true,
  });
  await registerProtectedScope(
    app,
    {
      tokens,
      tenancy,
      versions: sessionVersions,
      perUserLimit: limits.protectedRoutes,
      systemDb,
      clock,
      log,
      idempotencyLockMs: Math.max(30_000, 4 * config.gatewayTimeoutMs),
    },
    protectedRoutes,
  );

  // Its own listener, never the public port (docs/metrics.md); read at scrape time, so idle costs nothing.
  if (config.metricsPort !== undefined) {
    const listener = await serveMetrics(metrics, {
      host: config.metricsHost,
      port: config.metricsPort,
      tenantPools: () => standalone.pools.stats(),
      jobQueues: () => jobs.backlog(),
    });
    app.metricsUrl = listener.url;
    lifetime.add('metrics listener', () => listener.close());
  }
}
