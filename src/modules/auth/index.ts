import type { FastifyInstance } from 'fastify';
import { createRefusalBudget, LIMITS } from '../../platform/rate-limit.js';
import { deriveKey } from '../../platform/security/secrets.js';
import type { Shared } from '../shared.js';
import { createPasswordNotices } from './password-notice.js';
import { createPasswordReset, RESET_EMAIL_JOB } from './password-reset.js';
import { authRoutes, publicAuthRoutes } from './routes.js';
import { createAuthService, type AuthService } from './service.js';
import { createSessions } from './sessions.js';

/** What other modules may ask of auth: a portal user's contact and profile. */
export type PortalUsers = Pick<AuthService, 'contactOf' | 'me'>;

/**
 * Register, login, tokens and sessions, password reset and change (docs/authentication.md):
 * the public ways in, whose answers are never cached, and the routes of a logged-in user.
 */
export async function registerAuth(
  app: FastifyInstance,
  shared: Pick<
    Shared,
    | 'audit'
    | 'calendar'
    | 'clock'
    | 'config'
    | 'counter'
    | 'jobs'
    | 'mailer'
    | 'metrics'
    | 'passwords'
    | 'sessionVersions'
    | 'systemDb'
    | 'tenancy'
    | 'tokens'
  >,
): Promise<{ users: PortalUsers }> {
  const { config, clock, tenancy, systemDb, passwords, audit, jobs, mailer, counter } = shared;
  const sessions = createSessions({
    systemDb,
    tenancy,
    versions: shared.sessionVersions,
    clock,
    ttlDays: config.refreshTtlDays,
    graceSeconds: config.refreshGraceSeconds,
    successorKey: deriveKey(config.jwtSecret, 'refresh-successor'),
  });
  const notices = createPasswordNotices({ tenancy, calendar: shared.calendar, jobs, mailer });
  await notices.work(config.jobConcurrency);
  const auth = createAuthService({
    tenancy,
    passwords,
    tokens: shared.tokens,
    sessions,
    audit,
    clock,
    refreshRefusals: createRefusalBudget(counter, 'refresh-refused', LIMITS.refreshRefusalsPerIp),
    metrics: shared.metrics,
    notices,
  });
  const reset = createPasswordReset({
    tenancy,
    passwords,
    sessions,
    audit,
    jobs,
    mailer,
    counter,
    clock,
    notices,
    codeKey: deriveKey(config.jwtSecret, 'reset-code-hmac'),
    sealKey: deriveKey(config.jwtSecret, 'reset-code-seal'),
  });
  await jobs.work(
    RESET_EMAIL_JOB,
    (job: Parameters<typeof reset.sendCodeEmail>[0]) => reset.sendCodeEmail(job),
    { concurrency: config.jobConcurrency },
  );

  publicAuthRoutes(app, { auth, reset, config });
  authRoutes(app, { auth, config });
  return { users: auth };
}
