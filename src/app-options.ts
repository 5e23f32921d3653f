import type { FastifyServerOptions, onRouteHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import type { TimerClock } from './platform/clock.js';
import type { SystemDatabase } from './platform/db/types.js';
import type { Outbox } from './platform/mail/mailer.js';
import type { PasswordHasher } from './platform/security/passwords.js';
import type { Tenancy } from './platform/tenancy/tenancy.js';

/* What buildApp (src/app.ts) takes besides the configuration, and what it decorates the app with. */

declare module 'fastify' {
  interface FastifyInstance {
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
  perUserMax?: number;
  /**
   * false: no fair-use limit on the invoice PDF (docs/api.md "Limits"), so a benchmark measures
   * the render path itself; on unless a benchmark says otherwise.
   */
  invoicePdfFairUse?: boolean;
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
