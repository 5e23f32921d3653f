/*
 * How a document is named, once for every page, PDF file name and e-mail (docs/web.md "How a
 * document is named", docs/decisions.md #51): its kind in words with one capitalisation, its
 * letter, and its number as a 4-digit punto de venta and an 8-digit number:
 * "Factura B 0001-00001301", "Nota de débito B 0001-00000077", "Recibo RC0001-00000041". The API
 * answers every document by it, the reports service prints it, and the web client saves each PDF
 * under the file name it gives. Plain code with no imports: the web client bundles it, as it does
 * the route table. Tested in test/platform/unit/names.test.ts.
 */

/** The ledger's kinds (ordcta.tipo): invoice, debit note, credit note, receipt. */
export type DocumentKind = 'FAC' | 'ND' | 'NC' | 'REC';

/** What a document is known by: the ledger's row, and ARCA's when it has a fiscal row. */
export interface DocumentFacts {
  /** `ordcta.tipo`; absent where only the ledger's words were kept (a payment, a coupon). */
  tipo?: string | null | undefined;
  /** `ordcta.comprobante`, as the ERP wrote it ("Factura B", "Nota de Débito B"). */
  comprobante: string;
  /** `ordcta.nrocomp`, as the ERP wrote it ("0001-00001301", "00001-00001301"). */
  nrocomp: string;
  /** The document's `cbtefis` row, when it has one: ARCA's letter and number win. */
  fiscal?: {
    tipo_cbte?: number | null | undefined;
    letra: string | null;
    punto_venta: number | null;
    numero: number | null;
  } | null;
}

/** A document's name in two parts, so a page can keep the number on one line. */
export interface DocumentName {
  /** "Factura B", "Nota de crédito A", "Recibo". */
  titulo: string;
  /** "0001-00001301"; a number of another shape as the ERP wrote it ("RC0001-00000041"). */
  numero: string;
}

const KIND_WORDS: Record<DocumentKind, string> = {
  FAC: 'Factura',
  ND: 'Nota de débito',
  NC: 'Nota de crédito',
  REC: 'Recibo',
};

/** ARCA's MiPyME credit invoices (codes 201-213): another document, said so. */
const MIPYME_WORDS: Record<Exclude<DocumentKind, 'REC'>, string> = {
  FAC: 'Factura de crédito electrónica MiPyME',
  ND: 'Nota de débito electrónica MiPyME',
  NC: 'Nota de crédito electrónica MiPyME',
};

/** Lower case, without accents or repeated spaces: how the ERP's words are compared. */
function plain(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

function isKind(tipo: string | null | undefined): tipo is DocumentKind {
  return tipo === 'FAC' || tipo === 'ND' || tipo === 'NC' || tipo === 'REC';
}

/** The kind the ERP's words name, when they name one of the four. */
function kindOfWords(words: string): DocumentKind | null {
  if (/^nota de debito\b/.test(words)) return 'ND';
  if (/^nota de credito\b/.test(words)) return 'NC';
  if (/^factura\b/.test(words)) return 'FAC';
  if (/^recibo\b/.test(words)) return 'REC';
  return null;
}

const MIPYME_WORDS_PATTERN = /\bmipyme\b|\bfce\b|credito electronica/;

/** A letter as a document carries it: one of A-Z, upper case; null otherwise. */
function letterOf(text: string | null | undefined): string | null {
  const letter = text?.trim().toUpperCase() ?? '';
  return /^[A-Z]$/.test(letter) ? letter : null;
}

/** `0001-00001301`: the punto de venta in 4 digits (5 from 10000 on) and the number in 8. */
export function voucherNumber(puntoVenta: number, numero: number): string {
  return `${String(puntoVenta).padStart(4, '0')}-${String(numero).padStart(8, '0')}`;
}

/** A ledger number of two digit groups, with or without its letter before them ("B-0001-…"). */
const LEDGER_NUMBER = /^(?:([A-Za-z])\s*-?\s*)?(\d{1,5})\s*-\s*(\d{1,8})$/;

/*
 * The ERP's words for its documents, plain: a ledger has a handful ("Factura B", "Nota de débito
 * A"), and every list names each of its rows, so each is made plain once (Unicode normalization is
 * most of a name's cost). Bounded: emptied when it holds more than a ledger would.
 */
const plainWords = new Map<string, string>();
const PLAIN_WORDS_KEPT = 512;

function plainOnce(text: string): string {
  let words = plainWords.get(text);
  if (words === undefined) {
    words = plain(text);
    if (plainWords.size >= PLAIN_WORDS_KEPT) plainWords.clear();
    plainWords.set(text, words);
  }
  return words;
}

/** The document's name (the rule in this file's head). */
export function documentName(doc: DocumentFacts): DocumentName {
  const words = plainOnce(doc.comprobante);
  const kind = isKind(doc.tipo) ? doc.tipo : kindOfWords(words);
  const written = doc.nrocomp.replace(/\s+/g, ' ').trim();
  // Only a fiscal document's number is ARCA's pair; a receipt's ("RC0001-00000041", the
  // portal's and the ERP's key for it) and words of another kind keep theirs as written.
  const fiscalKind = kind === 'FAC' || kind === 'ND' || kind === 'NC';
  const ledger = fiscalKind ? LEDGER_NUMBER.exec(written) : null;
  const fiscal = fiscalKind ? (doc.fiscal ?? null) : null;

  let numero = written;
  if (fiscal && fiscal.punto_venta !== null && fiscal.numero !== null) {
    numero = voucherNumber(fiscal.punto_venta, fiscal.numero);
  } else if (ledger) {
    numero = voucherNumber(Number(ledger[2]), Number(ledger[3]));
  }

  // The ERP's words, when they name no kind of ours: as it wrote them.
  if (kind === null) {
    return { titulo: doc.comprobante.replace(/\s+/g, ' ').trim(), numero };
  }
  const letra =
    letterOf(fiscal?.letra) ??
    letterOf(/\s([a-z])$/.exec(words)?.[1]) ??
    letterOf(ledger?.[1] ?? null);
  const code = fiscal?.tipo_cbte ?? null;
  const mipyme = (code !== null && code >= 201 && code <= 213) || MIPYME_WORDS_PATTERN.test(words);
  const kindWords = mipyme && kind !== 'REC' ? MIPYME_WORDS[kind] : KIND_WORDS[kind];
  return { titulo: letra === null ? kindWords : `${kindWords} ${letra}`, numero };
}

/** "Factura B 0001-00001301": the name in one line of text (e-mails, PDFs, messages). */
export function documentFullName(doc: DocumentFacts | DocumentName): string {
  const name = 'titulo' in doc ? doc : documentName(doc);
  return [name.titulo, name.numero].filter((part) => part !== '').join(' ');
}

/**
 * The file a document's PDF is saved as: its name in lower case, without accents, words and
 * numbers joined by hyphens ("factura-b-0001-00001301.pdf", "recibo-rc0001-00000041.pdf"). Only
 * letters, digits and hyphens: safe in a quoted Content-Disposition parameter and on any disk.
 */
export function documentFileName(doc: DocumentFacts | DocumentName): string {
  const slug = plain(documentFullName(doc))
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${slug === '' ? 'comprobante' : slug}.pdf`;
}

/**
 * What is left of a debt paid in part, the amounts already written ("$ 20.000,00"): "Resta
 * $ 20.000,00 de $ 38.500,00", or "Resta $ 20.000,00" where what it was issued for is not known
 * (a payment recorded before the rule).
 */
export function restPhrase(left: string, of?: string | null): string {
  return of ? `Resta ${left} de ${of}` : `Resta ${left}`;
}

/**
 * `text` ending a sentence: one full stop, none added when it already ends in one ("…de
 * Distribuidora Demo S.A."), so a sentence that ends in a name ending in a full stop takes one.
 */
export function withFullStop(text: string): string {
  const trimmed = text.trimEnd();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
