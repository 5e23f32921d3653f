import { quoteIdentifier } from '../platform/db/identifiers.js';
import type {
  CbtefisHeader,
  CbtefisdetLine,
  CbtefisivaRate,
  EmpfiscalRow,
} from '../platform/db/types.js';

/*
 * Writes the ERP's electronic-invoice rows (docs/erp.md "The ERP's electronic invoices") for the
 * demo seed, the tests and the benchmark: in production the ERP writes them when ARCA authorizes
 * a document, and the portal only reads them.
 */

/** Runs one parameterized statement (a pg client's `query`, or a test tenant's). */
export type RunSql = (text: string, values: unknown[]) => Promise<unknown>;

export type IssuerSpec = EmpfiscalRow;

/** The columns the fixture fills with the ERP's defaults when a spec leaves them out. */
type Defaulted = 'moneda' | 'cotizacion' | 'exento' | 'tributos';

export type FiscalDocumentSpec = Omit<CbtefisHeader, Defaulted> &
  Partial<Pick<CbtefisHeader, Defaulted>> & {
    ordcta_id: string;
    asociado_ordcta_id?: string | null;
    lineas: CbtefisdetLine[];
    /** IVA by rate; letter A documents list each rate their lines use. */
    alicuotas: CbtefisivaRate[];
  };

/**
 * The body of a Factura A of $ 1.320,50 with two IVA rates (21 % and 10,5 %), one line each: the
 * invoice tests and the invoice bench draw the same document.
 */
export const TWO_RATE_BODY: Pick<
  FiscalDocumentSpec,
  'neto' | 'iva' | 'total' | 'lineas' | 'alicuotas'
> = {
  neto: '1100.00',
  iva: '220.50',
  total: '1320.50',
  lineas: [
    {
      descripcion: 'Tornillos autoperforantes x 100',
      cantidad: '10',
      precio_unitario: '100',
      alicuota_iva: '21',
      importe: '1000.00',
    },
    {
      descripcion: 'Manual técnico de fijaciones',
      cantidad: '1',
      precio_unitario: '100',
      alicuota_iva: '10.5',
      importe: '100.00',
    },
  ],
  alicuotas: [
    { alicuota: '21', base: '1000.00', importe: '210.00' },
    { alicuota: '10.5', base: '100.00', importe: '10.50' },
  ],
};

/**
 * `count` lines of a long invoice, 5 centavos each at 21 %, whose descriptions wrap to three
 * lines of the printed table, as an ERP's detailed descriptions do: 1,990 of them are the
 * 106 pages, about a second of CPU, of the long invoice in docs/benchmarks.md.
 */
export function longInvoiceLines(count: number): CbtefisdetLine[] {
  return Array.from({ length: count }, (_, index) => ({
    descripcion: `Tornillo autoperforante cabeza hexagonal con arandela 14 x 2 pulgadas, zincado, caja de 100 unidades, para chapa y perfiles de acero galvanizado (artículo ${index + 1})`,
    cantidad: '1.0000',
    precio_unitario: '0.0500',
    alicuota_iva: '21.00',
    importe: '0.05',
  }));
}

export async function insertIssuer(run: RunSql, issuer: IssuerSpec): Promise<void> {
  await run(
    `INSERT INTO public.empfiscal (cuit, razon_social, domicilio, cond_iva, iibb, inicio_actividades)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      issuer.cuit,
      issuer.razon_social,
      issuer.domicilio,
      issuer.cond_iva,
      issuer.iibb,
      issuer.inicio_actividades,
    ],
  );
}

/** A document's cbtefis row, its lines and its IVA by rate, in the customer-data `schema`. */
export async function insertFiscalDocument(
  run: RunSql,
  schema: string,
  spec: FiscalDocumentSpec,
): Promise<void> {
  const table = (name: string) => `${quoteIdentifier(schema)}.${name}`;
  await run(
    `INSERT INTO ${table('cbtefis')}
       (ordcta_id, tipo_cbte, letra, punto_venta, numero, fecha, cae, cae_vto, doc_tipo, doc_nro,
        receptor_nombre, receptor_domicilio, receptor_cond_iva, moneda, cotizacion, neto, iva,
        exento, tributos, total, asociado_ordcta_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
             $20, $21)`,
    [
      spec.ordcta_id,
      spec.tipo_cbte,
      spec.letra,
      spec.punto_venta,
      spec.numero,
      spec.fecha,
      spec.cae,
      spec.cae_vto,
      spec.doc_tipo,
      spec.doc_nro,
      spec.receptor_nombre,
      spec.receptor_domicilio,
      spec.receptor_cond_iva,
      spec.moneda ?? 'PES',
      spec.cotizacion ?? '1',
      spec.neto,
      spec.iva,
      spec.exento ?? '0',
      spec.tributos ?? '0',
      spec.total,
      spec.asociado_ordcta_id ?? null,
    ],
  );
  if (spec.lineas.length > 0) {
    // One statement for all the lines: a 2,000-line invoice is one round trip, not 2,000.
    const column = (pick: (line: CbtefisdetLine) => string) => spec.lineas.map(pick);
    await run(
      `INSERT INTO ${table('cbtefisdet')}
         (ordcta_id, renglon, descripcion, cantidad, precio_unitario, alicuota_iva, importe)
       SELECT $1, l.renglon, l.descripcion, l.cantidad, l.precio_unitario, l.alicuota_iva, l.importe
         FROM unnest($2::int[], $3::text[], $4::numeric[], $5::numeric[], $6::numeric[],
                     $7::numeric[])
           AS l (renglon, descripcion, cantidad, precio_unitario, alicuota_iva, importe)`,
      [
        spec.ordcta_id,
        spec.lineas.map((_line, index) => index + 1),
        column((line) => line.descripcion),
        column((line) => line.cantidad),
        column((line) => line.precio_unitario),
        column((line) => line.alicuota_iva),
        column((line) => line.importe),
      ],
    );
  }
  for (const rate of spec.alicuotas) {
    await run(
      `INSERT INTO ${table('cbtefisiva')} (ordcta_id, alicuota, base, importe)
       VALUES ($1, $2, $3, $4)`,
      [spec.ordcta_id, rate.alicuota, rate.base, rate.importe],
    );
  }
}
