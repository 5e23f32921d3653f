import { AppError } from '../platform/errors.js';
import type { StatementPeriod } from './statement.js';

/**
 * The same day a year earlier, `YYYY-MM-DD`; 29 February gives 28 February (the year before a
 * leap year is never one). Calendar arithmetic on the text: no time zone, no Date quirks for
 * early years.
 */
export function sameDayYearBefore(date: string): string {
  const [year = '', month = '', day = ''] = date.split('-');
  const earlier = String(Number(year) - 1).padStart(4, '0');
  return `${earlier}-${month}-${month === '02' && day === '29' ? '28' : day}`;
}

function refuseBackwards(desde: string, hasta: string): never {
  throw new AppError('VALIDATION_ERROR', `desde (${desde}) es posterior a hasta (${hasta})`);
}

/** The query's dates, each already a valid `YYYY-MM-DD` (the route's schema). */
export interface PeriodQuery {
  desde?: string | undefined;
  hasta?: string | undefined;
}

/**
 * docs/api.md GET /portal/estado-cuenta: `hasta` defaults to the tenant's today, `desde` to the
 * same day a year before `hasta`; `desde` after `hasta` is 422 VALIDATION_ERROR. Two given dates
 * are checked before `today` is asked for, so a backwards period costs nothing; `today` (the
 * tenant's zone, cached) is then needed anyway, by the defaults and by the aging.
 */
export async function resolvePeriod(
  query: PeriodQuery,
  today: () => Promise<string>,
): Promise<{ period: StatementPeriod; today: string }> {
  if (query.desde !== undefined && query.hasta !== undefined && query.desde > query.hasta) {
    refuseBackwards(query.desde, query.hasta);
  }
  const now = await today();
  const hasta = query.hasta ?? now;
  const desde = query.desde ?? sameDayYearBefore(hasta);
  if (desde > hasta) refuseBackwards(desde, hasta);
  return { period: { desde, hasta }, today: now };
}
