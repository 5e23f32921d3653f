import { numericToCents, centsToNumeric } from './money.js';

/*
 * Figures as Argentine documents print them, for the API (e-mails, pages, file names) and the
 * reports service (the PDFs) alike: one rule below both, so a receipt's e-mail and its PDF agree.
 */

const THOUSANDS = /\B(?=(\d{3})+(?!\d))/g;

/** `$ 1.234,56` from a 2-decimal amount ("1234.56"), the way Argentine documents print money. */
export function formatMoney(amount: string): string {
  // centsToNumeric writes the sign, the units and both cent digits ("-1234.56"); this only regroups.
  const [units = '', cents = ''] = centsToNumeric(numericToCents(amount)).split('.');
  const negative = units.startsWith('-');
  const grouped = (negative ? units.slice(1) : units).replace(THOUSANDS, '.');
  return `${negative ? '-' : ''}$ ${grouped},${cents}`;
}

/** `21/11/2026` from `2026-11-21`. */
export function formatDate(date: string): string {
  const [year, month, day] = date.split('-');
  return `${day ?? ''}/${month ?? ''}/${year ?? ''}`;
}

/**
 * A sucursal as a document's header names it: "Sucursal Centro" for a sucursal called "Centro",
 * and "Sucursal Norte" as it is for one the ERP already calls so (never "Sucursal Sucursal").
 */
export function sucursalLabel(nombre: string): string {
  const name = nombre.replace(/\s+/g, ' ').trim();
  return /^sucursal\b/i.test(name) ? name : `Sucursal ${name}`;
}

/**
 * `00001-00000123`: the punto de venta (5 digits) and the number (8), as ARCA prints them: the
 * legal representation's number box only (RG 1415 with ARCA's 5-digit puntos de venta). Every
 * other place writes a document by contract/names.ts ("0001-00000123").
 */
export function voucherNumber(puntoVenta: number, numero: number): string {
  return `${String(puntoVenta).padStart(5, '0')}-${String(numero).padStart(8, '0')}`;
}
