import { DEFAULT_TIME_ZONE, isTimeZone } from '../../platform/dates.js';
import { readIni } from '../../platform/tenancy/ini.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';

/** The tenant's `ini` keys of the due-date reminders (docs/erp.md "Tenant settings"). */
export const REMINDER_INI = {
  enabled: 'portal.avisos.habilitado',
  daysBefore: 'portal.avisos.dias_antes',
  daysOverdue: 'portal.avisos.dias_vencido',
  hour: 'portal.avisos.hora',
} as const;
const ZONE_KEY = 'sistema.zona_horaria';

export const DEFAULT_DAYS_BEFORE = 3;
export const DEFAULT_DAYS_OVERDUE: readonly number[] = [1, 7];
export const DEFAULT_HOUR = 9;
/** The furthest a stage may lie from its due date: a year. */
const MAX_DAYS = 365;
const MAX_OVERDUE_STAGES = 10;

const ON_VALUES = new Set(['true', '1', 'si', 'sí']);
const OFF_VALUES = new Set(['false', '0', 'no']);

export interface ReminderSettings {
  enabled: boolean;
  /** Days before the due date of the `antes` reminder; 0: none. */
  daysBefore: number;
  /** Days after the due date of each overdue reminder, ascending; empty: none. */
  daysOverdue: readonly number[];
  /** The tenant's local hour of the daily run. */
  hour: number;
  /** The tenant's IANA time zone (`sistema.zona_horaria`, docs/decisions.md #6). */
  timeZone: string;
}

/** A value the tenant wrote that is not one the key takes; the default applied instead. */
export interface SettingProblem {
  key: string;
  value: string;
}

function wholeNumber(value: string, min: number, max: number): number | undefined {
  if (!/^\d{1,3}$/.test(value)) return undefined;
  const number = Number(value);
  return number >= min && number <= max ? number : undefined;
}

function overdueDays(value: string): readonly number[] | undefined {
  // `0` alone: no reminder after the due date.
  if (value === '0') return [];
  const days = new Set<number>();
  for (const item of value.split(',')) {
    const day = wholeNumber(item.trim(), 1, MAX_DAYS);
    if (day === undefined) return undefined;
    days.add(day);
  }
  if (days.size > MAX_OVERDUE_STAGES) return undefined;
  return [...days].sort((a, b) => a - b);
}

/**
 * The settings from the raw `ini` values (absent or blank keys are absent): each bad value falls
 * back to its documented default, and is reported so the caller can log it (never a failure).
 */
export function parseReminderSettings(ini: ReadonlyMap<string, string>): {
  settings: ReminderSettings;
  problems: SettingProblem[];
} {
  const problems: SettingProblem[] = [];
  function setting<T>(key: string, parse: (value: string) => T | undefined, fallback: T): T {
    const raw = ini.get(key);
    if (raw === undefined) return fallback;
    const parsed = parse(raw);
    if (parsed === undefined) {
      problems.push({ key, value: raw });
      return fallback;
    }
    return parsed;
  }
  const settings: ReminderSettings = {
    enabled: setting(
      REMINDER_INI.enabled,
      (value) => {
        const lower = value.toLowerCase();
        if (ON_VALUES.has(lower)) return true;
        return OFF_VALUES.has(lower) ? false : undefined;
      },
      false,
    ),
    daysBefore: setting(
      REMINDER_INI.daysBefore,
      (value) => wholeNumber(value, 0, MAX_DAYS),
      DEFAULT_DAYS_BEFORE,
    ),
    daysOverdue: setting(REMINDER_INI.daysOverdue, overdueDays, DEFAULT_DAYS_OVERDUE),
    hour: setting(REMINDER_INI.hour, (value) => wholeNumber(value, 0, 23), DEFAULT_HOUR),
    timeZone: setting(
      ZONE_KEY,
      (value) => (isTimeZone(value) ? value : undefined),
      DEFAULT_TIME_ZONE,
    ),
  };
  return { settings, problems };
}

/** Reads the reminder keys and the time zone in one query (never cached: a change applies next run). */
export async function readReminderSettings(
  tenant: Pick<TenantContext, 'db'>,
): Promise<{ settings: ReminderSettings; problems: SettingProblem[] }> {
  const ini = await readIni(tenant, [...Object.values(REMINDER_INI), ZONE_KEY]);
  return parseReminderSettings(ini);
}

/**
 * Logs each bad value once per process and tenant (the run reads the settings every day, and a
 * warning a day about the same typo is noise), with the key and the value: neither is personal.
 */
export function createProblemLog(warn: (fields: object, message: string) => void) {
  const seen = new Set<string>();
  return function logProblems(tenantId: number, problems: readonly SettingProblem[]): void {
    for (const problem of problems) {
      const key = `${tenantId}\u0000${problem.key}\u0000${problem.value}`;
      if (seen.has(key)) continue;
      // A bounded memory: past this, a warning may repeat; it never grows without end.
      if (seen.size >= 10_000) seen.clear();
      seen.add(key);
      warn(
        { tenantId, key: problem.key, value: problem.value.slice(0, 100) },
        'bad reminder setting in ini; using its default',
      );
    }
  };
}
