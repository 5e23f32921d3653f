/**
 * ARCA's voucher codes (`cbtefis.tipo_cbte`, docs/erp.md "The ERP's electronic invoices") as the
 * printed representation names them: RG 1415 Anexo II wants the document's kind in words and
 * its code under the letter ("Cod. 01"). The table is ARCA's (also in Odoo's
 * l10n_latam.document.type for Argentina): 1/2/3 factura, nota de débito, nota de crédito A;
 * 6/7/8 the same of B; 11/12/13 of C; 51/52/53 of M; 201-213 the MiPyME credit invoices (FCE).
 */

export type DocumentKind = 'FAC' | 'ND' | 'NC';

export interface VoucherCode {
  kind: DocumentKind;
  letter: string;
  /** The name printed at the top, in capitals as the documents print it. */
  name: string;
}

const KIND_NAMES: Record<DocumentKind, string> = {
  FAC: 'FACTURA',
  ND: 'NOTA DE DÉBITO',
  NC: 'NOTA DE CRÉDITO',
};

const FCE_NAMES: Record<DocumentKind, string> = {
  FAC: 'FACTURA DE CRÉDITO ELECTRÓNICA MiPyME (FCE)',
  ND: 'NOTA DE DÉBITO ELECTRÓNICA MiPyME (FCE)',
  NC: 'NOTA DE CRÉDITO ELECTRÓNICA MiPyME (FCE)',
};

const KINDS: readonly DocumentKind[] = ['FAC', 'ND', 'NC'];

/** The first code of each letter's trio: the kind is the offset from it (0, 1, 2). */
const PLAIN: readonly [first: number, letter: string][] = [
  [1, 'A'],
  [6, 'B'],
  [11, 'C'],
  [51, 'M'],
];
const CREDIT: readonly [first: number, letter: string][] = [
  [201, 'A'],
  [206, 'B'],
  [211, 'C'],
];

/** What ARCA's code says, or undefined for a code outside these (the caller falls back). */
export function voucherCode(code: number): VoucherCode | undefined {
  for (const [table, names] of [
    [PLAIN, KIND_NAMES],
    [CREDIT, FCE_NAMES],
  ] as const) {
    for (const [first, letter] of table) {
      const kind = KINDS[code - first];
      if (kind !== undefined) return { kind, letter, name: names[kind] };
    }
  }
  return undefined;
}

/** `Cod. 01`: the code as the box under the letter prints it, at least two digits. */
export function codeLabel(code: number): string {
  return `Cod. ${String(code).padStart(2, '0')}`;
}

/** The document's name: ARCA's for a known code, else the ledger's kind in words. */
export function voucherName(code: number, kind: DocumentKind): string {
  return voucherCode(code)?.name ?? KIND_NAMES[kind];
}

/** The receiver's document type (`cbtefis.doc_tipo`, ARCA's table) as printed. */
export function documentTypeLabel(docTipo: number): string {
  switch (docTipo) {
    case 80:
      return 'CUIT';
    case 86:
      return 'CUIL';
    case 87:
      return 'CDI';
    case 89:
      return 'LE';
    case 90:
      return 'LC';
    case 94:
      return 'Pasaporte';
    case 96:
      return 'DNI';
    case 99:
      return 'Sin identificar';
    default:
      return `Doc. (${docTipo})`;
  }
}
