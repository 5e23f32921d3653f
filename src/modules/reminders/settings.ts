import type { Kysely } from 'kysely';
import type { TenantDatabase } from '../../platform/db/types.js';
import type { SettingsReader } from '../../platform/settings/reader.js';
import { SETTINGS } from '../../platform/settings/registry.js';
import type { SettingsOf } from '../../platform/settings/setting.js';

/** The due-date reminders' settings (docs/erp.md "Tenant settings") and the tenant's zone. */
export const REMINDER_SETTINGS = {
  enabled: SETTINGS.remindersOn,
  /** Days before the due date of the `antes` reminder; 0: none. */
  daysBefore: SETTINGS.reminderDaysBefore,
  /** Days after the due date of each overdue reminder, ascending; empty: none. */
  daysOverdue: SETTINGS.reminderDaysOverdue,
  /** The tenant's local hour of the daily run. */
  hour: SETTINGS.reminderHour,
  /** The tenant's IANA time zone (`sistema.zona_horaria`, docs/decisions.md #6). */
  timeZone: SETTINGS.timeZone,
};

export type ReminderSettings = SettingsOf<typeof REMINDER_SETTINGS>;

/**
 * Read fresh at each run and visit: a change applies at the next one. A bad value falls back to
 * its documented default; the reader logs it once per process, tenant and key.
 */
export function readReminderSettings(
  settings: SettingsReader,
  tenant: { tenantId: number; db: Kysely<TenantDatabase> },
): Promise<ReminderSettings> {
  return settings.read(tenant, REMINDER_SETTINGS, 'fresh');
}
