/*
 * CSV as a spreadsheet in es-AR opens it (docs/staff.md "pagos.csv"): UTF-8 with a byte order
 * mark (so accents survive a double click), `;` between fields (the comma is the decimal mark),
 * CRLF between rows, amounts with a decimal comma and no thousands separator.
 */

/** The byte order mark that tells a spreadsheet the file is UTF-8. */
export const BOM = '\uFEFF';

/** A cell that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, or a tab or CR first). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell: quoted when it holds the separator, a quote or a line break; a text that would start a
 * formula gets a leading apostrophe (OWASP's "CSV injection"), so `=HYPERLINK(...)` in a
 * customer's name is shown, never run. Numbers are written by `amountCell`, never through here.
 */
export function textCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[;"\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** `1234.5` -> `1234,50`: a number the spreadsheet reads as such in es-AR. */
export function amountCell(value: number): string {
  return value.toFixed(2).replace('.', ',');
}

export function csvRow(cells: readonly string[]): string {
  return `${cells.join(';')}\r\n`;
}

/** A line of a CSV of invitations, or why it is not one. */
export type InvitationLine =
  | { fila: number; sucursalId: number; cnro: number; email: string }
  | { fila: number; invalid: true; raw: string[] };

const EMAIL = /^[^\s@;,]+@[^\s@;,]+\.[^\s@;,]+$/;

/**
 * `sucursal_id;cnro;email` a line (`,` also taken, as some spreadsheets save it), a BOM and a
 * header line skipped, blank lines ignored. A line that is not three such fields comes back
 * invalid, with its line number, so the answer says which.
 */
export function parseInvitationCsv(text: string): InvitationLine[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const parsed: InvitationLine[] = [];
  lines.forEach((line, index) => {
    const fila = index + 1;
    if (line.trim() === '') return;
    const fields = line
      .split(line.includes(';') ? ';' : ',')
      .map((field) => field.trim().replace(/^"(.*)"$/, '$1'));
    if (fila === 1 && /^sucursal/i.test(fields[0] ?? '')) return;
    const [sucursal, cnro, email] = fields;
    const isId = (value: string | undefined) => value !== undefined && /^[1-9]\d{0,8}$/.test(value);
    if (fields.length !== 3 || !isId(sucursal) || !isId(cnro) || !EMAIL.test(email ?? '')) {
      parsed.push({ fila, invalid: true, raw: fields });
      return;
    }
    parsed.push({ fila, sucursalId: Number(sucursal), cnro: Number(cnro), email: email ?? '' });
  });
  return parsed;
}
