import type { InvoiceReport } from '../../../contract/reports.js';
import type { CbtefisHeader } from '../../platform/db/types.js';
import type { InvoiceDocument, Issuer } from './queries.js';

/** ERP text cut to the report's bounds (contract/report-bodies.ts) rather than refused. */
const fit = (text: string, length: number) => (text.length > length ? text.slice(0, length) : text);

/** A fiscal header whose CAE and its due date are set: an authorized document. */
export type AuthorizedHeader = CbtefisHeader & { cae: string; cae_vto: string };

/** Whether the header is of an authorized document whose CAE the QR can carry (14 digits). */
export function isAuthorized(header: CbtefisHeader | null): header is AuthorizedHeader {
  return (
    header !== null && header.cae !== null && /^\d{14}$/.test(header.cae) && header.cae_vto !== null
  );
}

/**
 * The body of `portal-factura`: the issuer, the authorized header, its lines and IVA by rate, and
 * the document a note adjusts, as the ERP holds them (the report prints the figures and builds
 * the QR from these very values).
 */
export function invoiceReport(
  document: InvoiceDocument,
  fiscal: AuthorizedHeader,
  issuer: Issuer & { cuit: string },
): InvoiceReport {
  const { asociado } = document;
  return {
    emisor: {
      razon_social: fit(issuer.razon_social, 500),
      domicilio: fit(issuer.domicilio, 500),
      cond_iva: fit(issuer.cond_iva, 200),
      cuit: issuer.cuit,
      iibb: issuer.iibb === null ? null : fit(issuer.iibb, 100),
      inicio_actividades: issuer.inicio_actividades,
    },
    comprobante: {
      tipo: document.tipo,
      tipo_cbte: fiscal.tipo_cbte,
      letra: fiscal.letra.trim().toUpperCase(),
      punto_venta: fiscal.punto_venta,
      numero: fiscal.numero,
      fecha: fiscal.fecha,
      cae: fiscal.cae,
      cae_vto: fiscal.cae_vto,
      moneda: fiscal.moneda.trim().toUpperCase(),
      cotizacion: fiscal.cotizacion,
      neto: fiscal.neto,
      iva: fiscal.iva,
      exento: fiscal.exento,
      tributos: fiscal.tributos,
      total: fiscal.total,
    },
    receptor: {
      nombre: fit(fiscal.receptor_nombre, 500),
      domicilio: fiscal.receptor_domicilio === null ? null : fit(fiscal.receptor_domicilio, 500),
      cond_iva: fit(fiscal.receptor_cond_iva, 200),
      doc_tipo: fiscal.doc_tipo,
      doc_nro: fiscal.doc_nro,
    },
    lineas: document.lineas.map((line) => ({ ...line, descripcion: fit(line.descripcion, 2000) })),
    iva: document.iva,
    asociado:
      asociado === null
        ? null
        : {
            ...asociado,
            letra: asociado.letra === null ? null : asociado.letra.trim().toUpperCase(),
            comprobante: fit(asociado.comprobante, 200),
            nrocomp: fit(asociado.nrocomp, 100),
          },
  };
}
