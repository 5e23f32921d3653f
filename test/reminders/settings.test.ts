import { describe, expect, it } from 'vitest';
import { lastDiscoveryTick } from '../../src/modules/reminders/discovery.js';
import { nextRunAt, runWindow, stagesOf } from '../../src/modules/reminders/schedule.js';
import { dateInTimeZone } from '../../src/platform/dates.js';
import { REMINDER_SETTINGS } from '../../src/modules/reminders/settings.js';
import { parseGroup } from '../../src/platform/settings/setting.js';

/* docs/erp.md "Tenant settings": the portal.avisos.* keys, their defaults and fallbacks. */

const BA = 'America/Argentina/Buenos_Aires';

const REMINDER_INI = {
  enabled: REMINDER_SETTINGS.enabled.key,
  daysBefore: REMINDER_SETTINGS.daysBefore.key,
  daysOverdue: REMINDER_SETTINGS.daysOverdue.key,
  hour: REMINDER_SETTINGS.hour.key,
};

/** The settings as the reminders read them, and the keys the reader would log. */
function parse(values: Record<string, string>) {
  const { values: settings, bad } = parseGroup(REMINDER_SETTINGS, new Map(Object.entries(values)));
  return { settings, problems: bad };
}

describe('portal.avisos.* settings', () => {
  it('absent keys: off, 3 days before, 1 and 7 days after, at 9 in Buenos Aires', () => {
    expect(parse({})).toEqual({
      settings: { enabled: false, daysBefore: 3, daysOverdue: [1, 7], hour: 9, timeZone: BA },
      problems: [],
    });
  });

  it.each(['true', '1', 'si', 'SI', 'Sí', 'TRUE'])('habilitado = %s is on', (value) => {
    expect(parse({ [REMINDER_INI.enabled]: value }).settings.enabled).toBe(true);
  });

  it.each(['false', '0', 'no', 'NO'])('habilitado = %s is off, without a warning', (value) => {
    expect(parse({ [REMINDER_INI.enabled]: value })).toMatchObject({
      settings: { enabled: false },
      problems: [],
    });
  });

  it('reads the other keys: no reminder before with 0, overdue days sorted and unique, the hour, the zone', () => {
    expect(
      parse({
        [REMINDER_INI.enabled]: 'si',
        [REMINDER_INI.daysBefore]: '0',
        [REMINDER_INI.daysOverdue]: ' 15, 1 ,3,1',
        [REMINDER_INI.hour]: '0',
        'sistema.zona_horaria': 'America/Argentina/Cordoba',
      }),
    ).toEqual({
      settings: {
        enabled: true,
        daysBefore: 0,
        daysOverdue: [1, 3, 15],
        hour: 0,
        timeZone: 'America/Argentina/Cordoba',
      },
      problems: [],
    });
    expect(parse({ [REMINDER_INI.daysOverdue]: '0' }).settings.daysOverdue).toEqual([]);
  });

  it('a bad value falls back to the default and is reported, never thrown', () => {
    const { settings, problems } = parse({
      [REMINDER_INI.enabled]: 'quizás',
      [REMINDER_INI.daysBefore]: '-1',
      [REMINDER_INI.daysOverdue]: '1,,7',
      [REMINDER_INI.hour]: '24',
      'sistema.zona_horaria': 'Marte/Olympus',
    });
    expect(settings).toEqual({
      enabled: false,
      daysBefore: 3,
      daysOverdue: [1, 7],
      hour: 9,
      timeZone: BA,
    });
    expect(problems.map((problem) => problem.key)).toEqual([
      REMINDER_INI.enabled,
      REMINDER_INI.daysBefore,
      REMINDER_INI.daysOverdue,
      REMINDER_INI.hour,
      'sistema.zona_horaria',
    ]);
    for (const value of ['366', '3.5', 'tres', '1e2']) {
      expect(parse({ [REMINDER_INI.daysBefore]: value }).settings.daysBefore).toBe(3);
    }
    expect(parse({ [REMINDER_INI.daysOverdue]: '1,2,3,4,5,6,7,8,9,10,11' }).problems).toHaveLength(
      1,
    );
  });
});

describe('the schedule', () => {
  it('stages: before with its shift, each overdue one with its own', () => {
    expect(stagesOf({ daysBefore: 3, daysOverdue: [1, 7] })).toEqual([
      { key: 'antes', kind: 'antes', shift: 3 },
      { key: 'vencido_1', kind: 'vencido', shift: -1 },
      { key: 'vencido_7', kind: 'vencido', shift: -7 },
    ]);
    expect(stagesOf({ daysBefore: 0, daysOverdue: [] })).toEqual([]);
  });

  it('a run covers its day and the two before it', () => {
    expect(runWindow('2026-03-01')).toEqual({ from: '2026-02-27', to: '2026-03-01' });
  });

  it('the next run is at the tenant’s hour on its wall clock: today if still ahead, else tomorrow', () => {
    const settings = { hour: 9, timeZone: BA };
    expect(nextRunAt(new Date('2026-11-21T11:59:59Z'), settings)).toEqual(
      new Date('2026-11-21T12:00:00Z'),
    );
    expect(nextRunAt(new Date('2026-11-21T12:00:00Z'), settings)).toEqual(
      new Date('2026-11-22T12:00:00Z'),
    );
    // 23:30 in Buenos Aires is already the 22nd in UTC: the date is the tenant's.
    expect(nextRunAt(new Date('2026-11-22T02:30:00Z'), { hour: 0, timeZone: BA })).toEqual(
      new Date('2026-11-22T03:00:00Z'),
    );
    // A zone with daylight saving: 9:00 is 13:00 UTC in summer, 14:00 in winter.
    const ny = { hour: 9, timeZone: 'America/New_York' };
    expect(nextRunAt(new Date('2026-07-01T00:00:00Z'), ny)).toEqual(
      new Date('2026-07-01T13:00:00Z'),
    );
    expect(nextRunAt(new Date('2026-12-01T00:00:00Z'), ny)).toEqual(
      new Date('2026-12-01T14:00:00Z'),
    );
    // 02:00 does not exist on the day clocks jump: the run is at the first instant after it.
    expect(
      nextRunAt(new Date('2026-03-08T00:00:00Z'), { hour: 2, timeZone: 'America/New_York' }),
    ).toEqual(new Date('2026-03-08T07:00:00Z'));
  });
});

describe('the discovery’s time', () => {
  it('is 02:30 UTC: the tick at or before an instant is that day’s, or the day before’s', () => {
    expect(lastDiscoveryTick(new Date('2026-11-21T02:30:00Z'))).toEqual(
      new Date('2026-11-21T02:30:00Z'),
    );
    expect(lastDiscoveryTick(new Date('2026-11-21T02:29:59Z'))).toEqual(
      new Date('2026-11-20T02:30:00Z'),
    );
    expect(lastDiscoveryTick(new Date('2026-03-01T00:00:00Z'))).toEqual(
      new Date('2026-02-28T02:30:00Z'),
    );
  });

  it('marks every hour of the next day in Buenos Aires: a tenant found on then runs the next day, whatever its hour', () => {
    const tick = new Date('2026-11-21T02:30:00Z');
    expect(dateInTimeZone(tick, BA)).toBe('2026-11-20');
    for (let hour = 0; hour < 24; hour += 1) {
      expect(dateInTimeZone(nextRunAt(tick, { hour, timeZone: BA }), BA)).toBe('2026-11-21');
    }
  });
});
