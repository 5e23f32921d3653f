import type { FastifyInstance } from 'fastify';
import type { Shared } from '../shared.js';
import { createEmailChangeNotices } from './email-change-notice.js';
import { profileRoutes } from './routes.js';
import { createProfileService } from './service.js';

/** What the profile reads of the deployment: how many notices an instance sends at once. */
export interface ProfileSettings {
  jobConcurrency: number;
}

/**
 * The customer's contact data and their choice about due-date reminders (docs/account.md): read,
 * change, and the notice of a new e-mail.
 */
export async function registerProfile(
  app: FastifyInstance,
  shared: Pick<Shared, 'clock' | 'jobs' | 'mailer' | 'tenancy'>,
  settings: ProfileSettings,
): Promise<void> {
  const { tenancy, jobs, mailer, clock } = shared;
  const notices = createEmailChangeNotices({ tenancy, jobs, mailer });
  await notices.work(settings.jobConcurrency);
  profileRoutes(app, {
    profile: createProfileService({ clock, notices }),
  });
}
