/*
 * The debts page's word on a tick that moved other boxes too (issue 38). Pure, tested in
 * test/web/unit/fifo-note.test.ts.
 */

/**
 * What ticking or unticking one box did to the others (FIFO): "También elegimos las 2 facturas
 * anteriores." Null when it changed that box only.
 */
export function carriedAlong(before: number, after: number): string | null {
  if (after > before + 1) {
    const n = after - before - 1;
    return n === 1
      ? 'También elegimos la factura anterior.'
      : `También elegimos las ${n} facturas anteriores.`;
  }
  if (after < before - 1) {
    const n = before - after - 1;
    return n === 1
      ? 'También quitamos la factura posterior.'
      : `También quitamos las ${n} facturas posteriores.`;
  }
  return null;
}
