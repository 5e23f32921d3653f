import { addDays, dateInTimeZone, instantOfLocalTime } from '../../platform/dates.js';
import type { ReminderStageKind } from '../../platform/metrics.js';
import type { ReminderSettings } from './settings.js';

/**
 * A reminder stage: `antes` (due in `dias_antes` days) or `vencido_<n>` (overdue by n days). A
 * debt reaches it on the day `vencimiento - shift`, so the debts reaching it on a given day are
 * those due `shift` days after it.
 */
export interface Stage {
  key: string;
  kind: ReminderStageKind;
  /** `vencimiento` = the stage's day + `shift` (positive before the due date, negative after). */
  shift: number;
}

/**
 * How many days back a run looks for stages not sent yet, besides its own day: a day of downtime
 * (or a run that failed all day) loses nothing, and nothing older than that is sent late.
 */
export const CATCH_UP_DAYS = 2;

export function stagesOf(settings: Pick<ReminderSettings, 'daysBefore' | 'daysOverdue'>): Stage[] {
  const stages: Stage[] = [];
  if (settings.daysBefore > 0) {
    stages.push({ key: 'antes', kind: 'antes', shift: settings.daysBefore });
  }
  for (const days of settings.daysOverdue) {
    stages.push({ key: `vencido_${days}`, kind: 'vencido', shift: -days });
  }
  return stages;
}

/** `antes` or `vencido`, from a stored stage key. */
export function stageKindOf(key: string): ReminderStageKind {
  return key === 'antes' ? 'antes' : 'vencido';
}

/** The days a run on `today` covers: its own and the catch-up days before it. */
export function runWindow(today: string): { from: string; to: string } {
  return { from: addDays(today, -CATCH_UP_DAYS), to: today };
}

/** The tenant's date at `now`. */
export function tenantToday(now: Date, settings: Pick<ReminderSettings, 'timeZone'>): string {
  return dateInTimeZone(now, settings.timeZone);
}

/**
 * The next daily run after `now`: `hora`:00 on the tenant's wall clock, today if that is still
 * ahead, else tomorrow.
 */
export function nextRunAt(now: Date, settings: Pick<ReminderSettings, 'hour' | 'timeZone'>): Date {
  const today = dateInTimeZone(now, settings.timeZone);
  const todays = instantOfLocalTime(today, settings.hour, settings.timeZone);
  if (todays.getTime() > now.getTime()) return todays;
  return instantOfLocalTime(addDays(today, 1), settings.hour, settings.timeZone);
}
