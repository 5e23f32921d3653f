import type { FastifyInstance } from 'fastify';
import { createRefusalBudget, LIMITS } from '../../platform/rate-limit.js';
import type { Shared } from '../shared.js';
import { createAccountsConsole, type AccountsConsole } from './console/index.js';

export type { AccountsConsole } from './console/index.js';
export type { PayLinks } from './links/index.js';
/** Making pay links outside the API (`cli avisos enviar`'s reminders). */
export { createPayLinkMaker } from './links/index.js';
export type { Invitations } from './links/invitations.js';
import { createPasswordNotices } from './password-notice.js';
import { createPasswordReset, RESET_EMAIL_JOB } from './password-reset.js';
import { authRoutes, linkRoutes, publicAuthRoutes } from './routes.js';
import { createPayLinks, type PayLinks } from './links/index.js';
import { createInvitations, INVITATION_EMAIL_JOB, type Invitations } from './links/invitations.js';
import type { SessionEnd } from './sessions.js';

/** The session ends that end the account's pay links too (not a logout or another login). */
const LINK_ENDING_REASONS: ReadonlySet<SessionEnd> = new Set<SessionEnd>([
  'password_change',
  'password_reset',
  'staff',
  'disabled',
]);
import { createAuthService, type AuthService } from './service.js';
import { createSessions } from './sessions.js';

/** What auth reads of the deployment (config.ts, filled by src/module-settings.ts). */
export interface AuthSettings {
  /** PORTAL_PUBLIC_PREFIX: the refresh cookie's path starts with it. */
  publicPrefix: '' | '/backend';
  /** PORTAL_ALLOWED_ORIGIN: the origins that may send the refresh cookie. */
  allowedOrigins: readonly string[];
  refreshTtlDays: number;
  refreshGraceSeconds: number;
  jobConcurrency: number;
}

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
    | 'counter'
    | 'jobs'
    | 'keys'
    | 'mailer'
    | 'metrics'
    | 'passwords'
    | 'payLinks'
    | 'sessionVersions'
    | 'settings'
    | 'sucursales'
    | 'systemDb'
    | 'tenancy'
    | 'tokens'
  >,
  settings: AuthSettings,
): Promise<{
  users: PortalUsers;
  /** The accounts as the business's console reads them and acts on them (docs/staff.md). */
  console: AccountsConsole;
  /** Pay links and invitations, for the console's and the reminders' (docs/pay-links.md). */
  links: { payLinks: PayLinks; invitations: Invitations };
}> {
  const { keys, clock, tenancy, systemDb, passwords, audit, jobs, mailer, counter } = shared;
  const sessions = createSessions({
    systemDb,
    tenancy,
    versions: shared.sessionVersions,
    clock,
    ttlDays: settings.refreshTtlDays,
    graceSeconds: settings.refreshGraceSeconds,
    successorKey: keys.derive('refresh-successor'),
    // docs/pay-links.md: a password changed or reset, or staff ending the account, ends its links.
    onEnded: async (tenant, portalUserId, reason) => {
      if (LINK_ENDING_REASONS.has(reason)) await payLinks.revokeAll(tenant, portalUserId);
    },
  });
  const webOrigin = settings.allowedOrigins[0];
  const payLinks = createPayLinks({
    systemDb,
    tenancy,
    tokens: shared.tokens,
    versions: shared.sessionVersions,
    settings: shared.settings,
    status: shared.payLinks,
    audit,
    clock,
    webOrigin,
  });
  const invitations = createInvitations({
    systemDb,
    tenancy,
    jobs,
    mailer,
    clock,
    sealKey: keys.derive('invitation-seal'),
    webOrigin,
  });
  await jobs.work(
    INVITATION_EMAIL_JOB,
    (job: Parameters<typeof invitations.sendEmail>[0]) => invitations.sendEmail(job),
    { concurrency: settings.jobConcurrency },
  );
  const notices = createPasswordNotices({ tenancy, calendar: shared.calendar, jobs, mailer });
  await notices.work(settings.jobConcurrency);
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
    codeKey: keys.derive('reset-code-hmac'),
    sealKey: keys.derive('reset-code-seal'),
  });
  await jobs.work(
    RESET_EMAIL_JOB,
    (job: Parameters<typeof reset.sendCodeEmail>[0]) => reset.sendCodeEmail(job),
    { concurrency: settings.jobConcurrency },
  );

  const deployment = {
    publicPrefix: settings.publicPrefix,
    allowedOrigins: settings.allowedOrigins,
  };
  publicAuthRoutes(app, { auth, reset, deployment, payLinks, invitations });
  authRoutes(app, { auth, deployment });
  linkRoutes(app, { payLinks, invitations });
  return {
    users: auth,
    console: createAccountsConsole({
      tenancy,
      sucursales: shared.sucursales,
      calendar: shared.calendar,
      clock,
      sessions,
      audit,
    }),
    links: { payLinks, invitations },
  };
}
