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
  for (const [index, line] of spec.lineas.entries()) {
    await run(
      `INSERT INTO ${table('cbtefisdet')}
         (ordcta_id, renglon, descripcion, cantidad, precio_unitario, alicuota_iva, importe)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        spec.ordcta_id,
        index + 1,
        line.descripcion,
        line.cantidad,
        line.precio_unitario,
        line.alicuota_iva,
        line.importe,
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
