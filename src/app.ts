import cookie from '@fastify/cookie';
import Fastify, {
  type FastifyInstance,
  type FastifyServerOptions,
  type onRouteHookHandler,
} from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import { createCouponLedger } from './ledger/coupons/service.js';
import { accountRoutes } from './modules/account/routes.js';
import { createAccountService } from './modules/account/service.js';
import { couponRoutes } from './modules/coupons/routes.js';
import { createCouponService } from './modules/coupons/service.js';
import { authRoutes, publicAuthRoutes } from './modules/auth/routes.js';
import { createAuthService } from './modules/auth/service.js';
import { createPasswordReset, RESET_EMAIL_JOB } from './modules/auth/password-reset.js';
import { createSessions } from './modules/auth/sessions.js';
import {
  createCheckoutExpiry,
  scheduleCheckoutExpiry,
} from './modules/payments/checkout-expiry.js';
import { createPaymentClaims } from './modules/payments/claims.js';
import { createGatewayRegistry } from './modules/payments/gateways/registry.js';
import { createPaymentDetail, createPaymentHistory } from './modules/payments/history.js';
import { createPaymentLifecycle } from './modules/payments/lifecycle.js';
import { createPaymentEmails } from './modules/payments/payment-emails.js';
import { createReceiptIssuer, workReceiptRetries } from './modules/payments/receipt-issuer.js';
import { createReconciler } from './modules/payments/reconcile.js';
import { createReceiptDownload } from './modules/payments/receipt-pdf.js';
import { paymentRoutes, paymentWebhookRoutes } from './modules/payments/routes.js';
import { createSandboxCheckout } from './modules/payments/sandbox-checkout.js';
import { sandboxRoutes } from './modules/payments/sandbox-routes.js';
import { createPaymentStart } from './modules/payments/start.js';
import { createWebhookHandler } from './modules/payments/webhook.js';
import { createPrintConfigService } from './modules/print/config-service.js';
import { printCertificateRoutes, printRoutes } from './modules/print/routes.js';
import { printSignerFor } from './modules/print/signer.js';
import { createEmailChangeNotices } from './modules/profile/email-change-notice.js';
import { profileRoutes } from './modules/profile/routes.js';
import { createProfileService } from './modules/profile/service.js';
import { receiptRoutes } from './modules/receipts/routes.js';
import { createReceiptService } from './modules/receipts/service.js';
import { tenantRoutes } from './modules/tenants/routes.js';
import { createAudit } from './platform/audit.js';
import { createJwtGuard } from './platform/auth/guard.js';
import { createSessionVersions } from './platform/auth/session-versions.js';
import { systemClock, type TimerClock } from './platform/clock.js';
import type { SystemDatabase } from './platform/db/types.js';
import { installErrorHandling } from './platform/http/error-handler.js';
import { healthRoutes } from './platform/http/health.js';
import { installOpenApi } from './platform/http/openapi.js';
import { keepAnswersPrivate } from './platform/http/private-answers.js';
import { installRequestLog } from './platform/http/request-log.js';
import { installRequestMetrics } from './platform/http/request-metrics.js';
import { openRedis } from './platform/redis.js';
import { installHttpSecurity } from './platform/http/security.js';
import { httpServerOptions } from './platform/http/server-options.js';
import { installValidation } from './platform/http/validation.js';
import { installIdempotency } from './platform/idempotency/http.js';
import { createIdempotencyPrune, scheduleIdempotencyPrune } from './platform/idempotency/prune.js';
import { openWebClient } from './platform/http/web-client.js';
import { startJobQueue } from './platform/jobs.js';
import { createLifetime, type Lifetime } from './platform/lifetime.js';
import { createMailer, type Outbox } from './platform/mail/mailer.js';
import { createMetrics, listenMetrics } from './platform/metrics.js';
import { createRefusalBudget, installRateLimits, LIMITS } from './platform/rate-limit.js';
import { bcryptPasswords, type PasswordHasher } from './platform/security/passwords.js';
import { deriveKey } from './platform/security/secrets.js';
import { createAccessTokens } from './platform/security/tokens.js';
import { createStandaloneTenancy } from './platform/tenancy/standalone.js';
import type { Tenancy } from './platform/tenancy/tenancy.js';
import { createTenantCalendar } from './platform/tenancy/today.js';
import { createReportsClient } from './reports/client.js';
import { packageVersion } from './platform/version.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    systemDb: Kysely<SystemDatabase>;
    tenancy: Tenancy;
    /** Development outbox (mail sent without a transport); empty in production. */
    outbox: Outbox;
    /** The Prometheus listener's `GET /metrics` URL; undefined without METRICS_PORT. */
    metricsUrl: string | undefined;
    /** The folder of the web client served at `/` (docs/web.md); undefined when none is. */
    webClientDir: string | undefined;
  }
}

export interface BuildOptions {
  /** Fastify logger options; defaults to pino with the redaction rules of the platform. */
  logger?: FastifyServerOptions['logger'];
  /** Terminate TLS in the service itself (TLS_CERT_PATH / TLS_KEY_PATH) instead of a proxy. */
  tls?: { cert: Buffer; key: Buffer } | undefined;
  /** Time for everything that reads it: tokens, locks, caches, idle pools (tests move a fake). */
  clock?: TimerClock;
  passwords?: PasswordHasher;
  /** Requests a minute per user on protected routes; docs/api.md's 100 unless a benchmark says otherwise. */
  protectedRoutesMax?: number;
  jobPollingSeconds?: number;
  /** First retry delay of a failed job (doubling after); 15 s unless a test wants it shorter. */
  jobRetryDelaySeconds?: number;
  /** How long an instance trusts a cached session version; a few seconds unless a test says. */
  sessionVersionCacheMs?: number;
  /** Where the development outbox prints messages. */
  print?: (text: string) => void;
  /** Sees every route as it is registered (test/platform/route-guard.test.ts lists them). */
  onRoute?: onRouteHookHandler;
}

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

/** Everything buildApp builds; what it opens goes into `lifetime` the moment it is open. */
async function assemble(
  app: FastifyInstance,
  config: Config & { databaseUrl: string },
  options: BuildOptions,
  lifetime: Lifetime,
): Promise<void> {
  const clock = options.clock ?? systemClock;
  const metrics = createMetrics();
  installRequestMetrics(app, metrics);

  // Read once, before anything opens (docs/decisions.md #39): a bad key stops the start, naming it.
  const printSigner = await printSignerFor(config, (message) => app.log.warn(message));
  // Likewise the web client to serve (docs/web.md): a PORTAL_WEB_DIR without index.html stops it.
  const webClient = await openWebClient(config);
  if (webClient) app.log.info({ dir: webClient.dir }, 'serving the web client');

  const standalone = createStandaloneTenancy(config.databaseUrl, {
    applicationName: 'portal-system',
    systemPoolSize: 5,
    ...config.tenantPools,
    ttlMs: 30_000,
    clock,
  });
  lifetime.add('tenant pools', () => standalone.close());
  const { systemDb, tenancy } = standalone;
  const { redis, outage: redisOutage } = await openRedis(config.redisUrl, app.log);
  if (redis) lifetime.add('redis', () => redis.disconnect());
  const jobs = await startJobQueue(config.databaseUrl, app.log, {
    pollingIntervalSeconds: options.jobPollingSeconds ?? 2,
    retryDelaySeconds: options.jobRetryDelaySeconds ?? 15,
  });
  lifetime.add('job queue', () => jobs.stop());
  const mailer = createMailer({
    smtpUrl: config.smtpUrl,
    devOutbox: !config.isProduction,
    print: options.print ?? ((text) => process.stdout.write(text)),
  });

  app.decorate('config', config);
  app.decorate('systemDb', systemDb);
  app.decorate('tenancy', tenancy);
  app.decorate('outbox', mailer);
  app.decorate('webClientDir', webClient?.dir);

  // docs/decisions.md #23: JSON only. Fastify also parses text/plain by default; that answers 415 here.
  app.removeContentTypeParser('text/plain');

  installValidation(app);
  installErrorHandling(app, { fallback: webClient?.serve });
  installRequestLog(app);
  await installHttpSecurity(app, config);
  await app.register(cookie);
  const limits = await installRateLimits(app, {
    redis,
    namespace: config.redisKeyPrefix,
    clock,
    outage: redisOutage,
    ...(options.protectedRoutesMax !== undefined && {
      protectedRoutesMax: options.protectedRoutesMax,
    }),
  });
  await installOpenApi(app, packageVersion);

  const tokens = createAccessTokens(config.jwtSecret, clock);
  const passwords = options.passwords ?? bcryptPasswords;
  const audit = createAudit(app.log);
  const versions = await createSessionVersions({
    redis,
    namespace: config.redisKeyPrefix,
    log: app.log,
    ...(options.sessionVersionCacheMs !== undefined && {
      cacheMs: options.sessionVersionCacheMs,
    }),
  });
  lifetime.add('session versions', () => versions.close());
  const sessions = createSessions({
    systemDb,
    tenancy,
    versions,
    clock,
    ttlDays: config.refreshTtlDays,
  });
  const auth = createAuthService({
    tenancy,
    passwords,
    tokens,
    sessions,
    audit,
    clock,
    refreshRefusals: createRefusalBudget(
      limits.counter,
      'refresh-refused',
      LIMITS.refreshRefusalsPerIp,
    ),
    metrics,
  });
  const reset = createPasswordReset({
    tenancy,
    passwords,
    sessions,
    audit,
    jobs,
    mailer,
    counter: limits.counter,
    clock,
    codeKey: deriveKey(config.jwtSecret, 'reset-code-hmac'),
    sealKey: deriveKey(config.jwtSecret, 'reset-code-seal'),
  });
  const notices = createEmailChangeNotices({ tenancy, jobs, mailer });
  await notices.work();
  await jobs.work(RESET_EMAIL_JOB, (job: Parameters<typeof reset.sendCodeEmail>[0]) =>
    reset.sendCodeEmail(job),
  );

  const calendar = createTenantCalendar(clock);

  const gateways = createGatewayRegistry({
    timeoutMs: config.gatewayTimeoutMs,
    publicUrl: config.backendUrl ?? '',
    sandboxEnabled: config.sandboxEnabled,
    allowedOrigins: config.gatewayAllowedOrigins,
    log: app.log,
  });
  const reports = createReportsClient({
    url: config.reportsUrl,
    secret: config.reportsServiceSecret,
    timeoutMs: config.reportsTimeoutMs,
    metrics,
  });
  // docs/payments.md "Payment e-mails": queued by TX2 and by the refund's transaction.
  const paymentEmails = createPaymentEmails({
    tenancy,
    jobs,
    mailer,
    // Its PDF calls are counted apart from the routes' (docs/metrics.md `report="receipt-email"`).
    reports: createReportsClient({
      url: config.reportsUrl,
      secret: config.reportsServiceSecret,
      timeoutMs: config.reportsTimeoutMs,
      metrics: {
        reportsCall: (_report, outcome, seconds) =>
          metrics.reportsCall('receipt-email', outcome, seconds),
      },
    }),
    users: auth,
    clock,
    log: app.log,
    metrics,
  });
  await paymentEmails.work();
  const receipts = createReceiptIssuer({
    tenancy,
    jobs,
    calendar,
    clock,
    log: app.log,
    metrics,
    emails: paymentEmails,
  });
  await workReceiptRetries(jobs, receipts, metrics);
  const reconcile = createReconciler({
    receipts,
    audit,
    clock,
    log: app.log,
    emails: paymentEmails,
  });
  // A claim outlives the gateway calls it guards only when its process died.
  const claims = createPaymentClaims({ clock, staleAfterMs: 4 * config.gatewayTimeoutMs });
  await scheduleCheckoutExpiry(
    jobs,
    createCheckoutExpiry({
      systemDb,
      tenancy,
      gateways,
      reconcile,
      claims,
      clock,
      log: app.log,
      ttlMinutes: config.checkoutTtlMinutes,
    }),
    metrics,
  );

  await scheduleIdempotencyPrune(
    jobs,
    createIdempotencyPrune({ systemDb, tenancy, clock, log: app.log }),
  );

  healthRoutes(app, systemDb);
  await app.register((scope, _options, done) => {
    keepAnswersPrivate(scope);
    publicAuthRoutes(scope, { auth, reset, config });
    done();
  });
  tenantRoutes(app, { directory: standalone.directory });
  paymentWebhookRoutes(app, {
    webhook: createWebhookHandler({
      tenancy,
      gateways,
      reconcile,
      refusals: createRefusalBudget(limits.counter, 'webhook-refused', LIMITS.webhookRefusalsPerIp),
      log: app.log,
      metrics,
    }),
  });
  await sandboxRoutes(app, {
    sandbox: createSandboxCheckout({ tenancy, enabled: config.sandboxEnabled }),
    resultPage: webClient === undefined,
  });
  printCertificateRoutes(app, { signer: printSigner });

  // Protected by default: the scope's hooks authenticate and rate-limit every route declared in
  // it, so a new route cannot forget them (test/platform/route-guard.test.ts lists every route).
  await app.register((authed, _options, done) => {
    keepAnswersPrivate(authed);
    authed.addHook('onRequest', createJwtGuard(tokens, tenancy, versions));
    authed.addHook('preHandler', limits.protectedRoutes);
    // docs/api.md "Idempotency-Key" on the routes that name it; after the guard and the limit.
    installIdempotency(authed, {
      systemDb,
      clock,
      log: app.log,
      lockTtlMs: Math.max(30_000, 4 * config.gatewayTimeoutMs),
    });
    authRoutes(authed, { auth, config });
    profileRoutes(authed, { profile: createProfileService({ clock, notices, users: auth }) });
    accountRoutes(authed, { account: createAccountService({ calendar }) });
    // The ledger's coupon services (docs/decisions.md #36): the coupon routes and PDF use them.
    const couponLedger = createCouponLedger({ calendar, clock });
    const coupons = createCouponService({ ledger: couponLedger, metrics });
    couponRoutes(authed, { coupons, reports });
    paymentRoutes(authed, {
      start: createPaymentStart({ config, gateways, clock, metrics, systemDb }),
      lifecycle: createPaymentLifecycle({ gateways, claims, clock, emails: paymentEmails }),
      history: createPaymentHistory({ calendar }),
      detail: createPaymentDetail({ calendar }),
      receiptPdf: createReceiptDownload({ reports }),
    });
    receiptRoutes(authed, { receipts: createReceiptService({ reports }) });
    printRoutes(authed, {
      signer: printSigner,
      printConfigs: createPrintConfigService({ clock }),
    });
    done();
  });

  // Its own listener, never the public port (docs/metrics.md); read at scrape time, so idle costs nothing.
  app.decorate('metricsUrl', undefined);
  if (config.metricsPort !== undefined) {
    metrics.collectRuntime();
    metrics.watchTenantPools(() => standalone.pools.stats());
    metrics.watchJobQueues(() => jobs.depths());
    const listener = await listenMetrics(metrics, {
      host: config.metricsHost,
      port: config.metricsPort,
    });
    app.metricsUrl = listener.url;
    lifetime.add('metrics listener', () => listener.close());
  }
}
