/**
 * DECISIONS.md 5: amounts leave the API as JSON numbers with 2 decimals. They are summed and
 * compared exactly (in SQL, or as integer cents); this is the one conversion at the edge.
 * numeric(15,2) has at most 15 significant digits, which a double holds exactly.
 */
export function toAmount(value: string | number): number {
  return Math.round(Number(value) * 100) / 100;
}
