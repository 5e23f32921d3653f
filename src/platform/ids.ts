/** The shapes of the ids the portal handles, checked in one place. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

import { MAX_INT4 } from '../../contract/envelope.js';

export { MAX_INT4 };

/** A uuid in text (either case). Anything else names no row of a uuid column. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A positive id an `integer` column can hold. */
export function isPositiveInt4(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= MAX_INT4
  );
}

/** A positive `integer` id written as decimal text ("42"), or undefined. */
export function parsePositiveInt4(text: string | undefined): number | undefined {
  if (text === undefined || !/^[1-9]\d{0,9}$/.test(text)) return undefined;
  const value = Number(text);
  return value <= MAX_INT4 ? value : undefined;
}
