import type pg from 'pg';
import { addDays } from '../../platform/dates.js';
import {
  insertFiscalDocument,
  insertIssuer,
  type FiscalDocumentSpec,
  type RunSql,
} from '../fiscal-fixture.js';

/**
 * The demo tenant's electronic invoices (docs/erp.md "The ERP's electronic invoices"): the
 * issuer, and the fiscal rows of some of the demo ledger's documents (src/dev/seed/demo.ts), whose
 * totals are the ledger's amounts: authorized Facturas B to Juan Pérez (a consumidor final) with
 * a debit note, one still waiting for its CAE, and one from before the fiscal tables; authorized
 * Facturas A to María González (one with two IVA rates) with a credit note; one to Ferretería El
 * Tornillo. Each document's date is its ledger row's.
 */

export const DEMO_ISSUER = {
  cuit: '30714589632',
  razon_social: 'Distribuidora Demo S.A.',
  domicilio: 'Av. Corrientes 1234, C1043AAZ Ciudad Autónoma de Buenos Aires',
  cond_iva: 'IVA Responsable Inscripto',
  iibb: '901-714589-6',
  inicio_actividades: '2012-04-02',
};

interface Receiver {
  doc_tipo: number;
  doc_nro: string;
  receptor_nombre: string;
  receptor_domicilio: string | null;
  receptor_cond_iva: string;
}

const JUAN: Receiver = {
  doc_tipo: 96,
  doc_nro: '20304050',
  receptor_nombre: 'Juan Pérez',
  receptor_domicilio: 'Av. San Martín 742, Morón, Buenos Aires',
  receptor_cond_iva: 'Consumidor Final',
};
const MARIA: Receiver = {
  doc_tipo: 80,
  doc_nro: '27287654311',
  receptor_nombre: 'María González',
  receptor_domicilio: 'Belgrano 1550, Rosario, Santa Fe',
  receptor_cond_iva: 'IVA Responsable Inscripto',
};
const TORNILLO: Receiver = {
  doc_tipo: 80,
  doc_nro: '30712345671',
  receptor_nombre: 'Ferretería El Tornillo S.R.L.',
  receptor_domicilio: 'Ruta 8 km 52, Pilar, Buenos Aires',
  receptor_cond_iva: 'IVA Responsable Inscripto',
};

const cents = (amount: string) => Math.round(Number(amount) * 100);
const text = (value: number) => (value / 100).toFixed(2);

/** A letter B or C document of one line at 21%, its price including IVA: net and IVA from the total. */
function includingIva(total: string, descripcion: string) {
  const totalCents = cents(total);
  const net = Math.round((totalCents * 100) / 121);
  return {
    neto: text(net),
    iva: text(totalCents - net),
    total,
    lineas: [
      { descripcion, cantidad: '1', precio_unitario: total, alicuota_iva: '21', importe: total },
    ],
    alicuotas: [{ alicuota: '21', base: text(net), importe: text(totalCents - net) }],
  };
}

/** A letter A document of one line at 21%, net prices: the net from the total. */
function netOf21(total: string, descripcion: string) {
  const totalCents = cents(total);
  const net = Math.round((totalCents * 100) / 121);
  return {
    neto: text(net),
    iva: text(totalCents - net),
    total,
    lineas: [
      {
        descripcion,
        cantidad: '1',
        precio_unitario: text(net),
        alicuota_iva: '21',
        importe: text(net),
      },
    ],
    alicuotas: [{ alicuota: '21', base: text(net), importe: text(totalCents - net) }],
  };
}

interface DemoFiscal {
  schema: string;
  cnro: number;
  nrocomp: string;
  tipo_cbte: number;
  letra: string;
  authorized: boolean;
  receiver: Receiver;
  asociado?: string;
  body: Pick<FiscalDocumentSpec, 'neto' | 'iva' | 'total' | 'lineas' | 'alicuotas'>;
}

const DOCUMENTS: DemoFiscal[] = [
  {
    schema: 'suc0001',
    cnro: 1001,
    nrocomp: '0001-00001230',
    tipo_cbte: 6,
    letra: 'B',
    authorized: true,
    receiver: JUAN,
    body: includingIva('45000.00', 'Heladera no frost 360 l'),
  },
  {
    schema: 'suc0001',
    cnro: 1001,
    nrocomp: '0001-00001301',
    tipo_cbte: 6,
    letra: 'B',
    authorized: true,
    receiver: JUAN,
    body: {
      neto: '31818.18',
      iva: '6681.82',
      total: '38500.00',
      lineas: [
        {
          descripcion: 'Lavarropas automático 8 kg',
          cantidad: '1',
          precio_unitario: '35000',
          alicuota_iva: '21',
          importe: '35000.00',
        },
        {
          descripcion: 'Instalación y puesta en marcha',
          cantidad: '2',
          precio_unitario: '1750',
          alicuota_iva: '21',
          importe: '3500.00',
        },
      ],
      alicuotas: [{ alicuota: '21', base: '31818.18', importe: '6681.82' }],
    },
  },
  {
    schema: 'suc0001',
    cnro: 1001,
    nrocomp: '0001-00000077',
    tipo_cbte: 7,
    letra: 'B',
    authorized: true,
    receiver: JUAN,
    asociado: '0001-00001301',
    body: includingIva('1250.50', 'Intereses por pago fuera de término'),
  },
  {
    schema: 'suc0001',
    cnro: 1001,
    nrocomp: '0001-00001345',
    tipo_cbte: 6,
    letra: 'B',
    authorized: true,
    receiver: JUAN,
    body: includingIva('52340.75', 'Smart TV 55" 4K'),
  },
  {
    schema: 'suc0001',
    cnro: 1001,
    nrocomp: '0001-00001390',
    tipo_cbte: 6,
    letra: 'B',
    // Sent to ARCA, no CAE yet: listed without its PDF.
    authorized: false,
    receiver: JUAN,
    body: includingIva('15600.00', 'Microondas 28 l'),
  },
  {
    schema: 'suc0001',
    cnro: 1002,
    nrocomp: '0001-00000512',
    tipo_cbte: 1,
    letra: 'A',
    authorized: true,
    receiver: MARIA,
    body: {
      neto: '101447.96',
      iva: '19052.04',
      total: '120500.00',
      lineas: [
        {
          descripcion: 'Resma A4 75 g (caja x 10)',
          cantidad: '40',
          precio_unitario: '2000',
          alicuota_iva: '21',
          importe: '80000.00',
        },
        {
          descripcion: 'Manual de procedimientos administrativos',
          cantidad: '12',
          precio_unitario: '1787.33',
          alicuota_iva: '10.5',
          importe: '21447.96',
        },
      ],
      alicuotas: [
        { alicuota: '21', base: '80000.00', importe: '16800.00' },
        { alicuota: '10.5', base: '21447.96', importe: '2252.04' },
      ],
    },
  },
  {
    schema: 'suc0001',
    cnro: 1002,
    nrocomp: '0001-00000540',
    tipo_cbte: 1,
    letra: 'A',
    authorized: true,
    receiver: MARIA,
    body: netOf21('98000.00', 'Toner láser negro (x 20)'),
  },
  {
    schema: 'suc0001',
    cnro: 1002,
    nrocomp: '0001-00000031',
    tipo_cbte: 3,
    letra: 'A',
    authorized: true,
    receiver: MARIA,
    asociado: '0001-00000512',
    body: netOf21('5000.00', 'Bonificación por volumen'),
  },
  {
    schema: 'suc0001',
    cnro: 1003,
    nrocomp: '0001-00000601',
    tipo_cbte: 1,
    letra: 'A',
    authorized: true,
    receiver: TORNILLO,
    body: netOf21('310000.00', 'Tornillos autoperforantes (x 1000)'),
  },
];

/** The punto de venta and number of a ledger number `PPPP-NNNNNNNN`. */
function fiscalNumber(nrocomp: string): { punto_venta: number; numero: number } {
  const [pv = '0', numero = '0'] = nrocomp.split('-');
  return { punto_venta: Number(pv), numero: Number(numero) };
}

/** Writes the issuer and the documents' fiscal rows (the ledger's rows exist already). */
export async function insertDemoFiscalData(client: pg.ClientBase): Promise<void> {
  const run: RunSql = (sqlText, values) => client.query(sqlText, values);
  await insertIssuer(run, DEMO_ISSUER);
  // The ledger's row: its id, and its date, which the document's is.
  const rowOf = async (schema: string, cnro: number, nrocomp: string) => {
    const found = await client.query<{ id: string; fecha: string }>(
      `SELECT id::text AS id, fecha::text AS fecha FROM ${schema}.ordcta
        WHERE cnro = $1 AND nrocomp = $2`,
      [cnro, nrocomp],
    );
    const row = found.rows[0];
    if (!row) throw new Error(`demo ledger has no ${nrocomp} of customer ${cnro}`);
    return row;
  };
  for (const [index, doc] of DOCUMENTS.entries()) {
    const { id, fecha } = await rowOf(doc.schema, doc.cnro, doc.nrocomp);
    await insertFiscalDocument(run, doc.schema, {
      ordcta_id: id,
      tipo_cbte: doc.tipo_cbte,
      letra: doc.letra,
      ...fiscalNumber(doc.nrocomp),
      fecha,
      cae: doc.authorized
        ? `7${String(4_589_632_000_000 + index * 7_919).padStart(13, '0')}`
        : null,
      cae_vto: doc.authorized ? addDays(fecha, 10) : null,
      ...doc.receiver,
      asociado_ordcta_id:
        doc.asociado === undefined ? null : (await rowOf(doc.schema, doc.cnro, doc.asociado)).id,
      ...doc.body,
    });
  }
}
