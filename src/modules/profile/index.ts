import type { FastifyInstance } from 'fastify';
import type { Shared } from '../shared.js';
import { createEmailChangeNotices } from './email-change-notice.js';
import { profileRoutes } from './routes.js';
import { createProfileService } from './service.js';

/**
 * The customer's contact data and their choice about due-date reminders (docs/account.md): read,
 * change, and the notice of a new e-mail.
 */
export async function registerProfile(
  app: FastifyInstance,
  shared: Pick<Shared, 'clock' | 'config' | 'jobs' | 'mailer' | 'tenancy'>,
): Promise<void> {
  const { config, tenancy, jobs, mailer, clock } = shared;
  const notices = createEmailChangeNotices({ tenancy, jobs, mailer });
  await notices.work(config.jobConcurrency);
  profileRoutes(app, {
    profile: createProfileService({ clock, notices }),
  });
}
