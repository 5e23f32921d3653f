import { routes } from '../../../contract/routes.js';

/** The unsubscribe route's path, as the table declares it. */
const UNSUBSCRIBE_PATH = routes.unsubscribeFromReminders.path;

/**
 * Where a reminder sends its reader: the web client's debts page (the first origin of
 * PORTAL_ALLOWED_ORIGIN, where the customers' pages are served) and the unsubscribe URL on the
 * API's public base (BACKEND_URL, under `/backend` like the gateways' webhook URLs).
 */
export interface ReminderLinks {
  debtsUrl(tenantId: number): string;
  unsubscribeUrl(token: string): string;
}

/** Undefined when the deployment lacks either base: no reminder is sent without its two links. */
export function reminderLinks(config: {
  allowedOrigins: readonly string[];
  backendUrl: string | undefined;
}): ReminderLinks | undefined {
  const webOrigin = config.allowedOrigins[0];
  const { backendUrl } = config;
  if (webOrigin === undefined || backendUrl === undefined) return undefined;
  return {
    debtsUrl: (tenantId) => `${webOrigin}/e/${tenantId}/deudas`,
    unsubscribeUrl: (token) =>
      `${backendUrl}/backend${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(token)}`,
  };
}
