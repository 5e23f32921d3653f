import { formatMoney } from '../platform/format.js';

/*
 * Figures of a fiscal document as Argentine invoices print them: thousands with dots, decimals
 * with a comma, quantities and rates without useless zeros.
 */

const THOUSANDS = /\B(?=(\d{3})+(?!\d))/g;

/** A decimal text ("1234.5000") with `min` to `max` decimals: "1.234,50" (min 2), "2" (min 0). */
export function formatDecimal(text: string, min: number, max: number): string {
  const negative = text.startsWith('-');
  const [units = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  let decimals = fraction.slice(0, max);
  while (decimals.length > min && decimals.endsWith('0')) decimals = decimals.slice(0, -1);
  decimals = decimals.padEnd(min, '0');
  const grouped = units.replace(THOUSANDS, '.');
  return `${negative ? '-' : ''}${grouped}${decimals === '' ? '' : `,${decimals}`}`;
}

/** The symbol amounts of this currency print with (ARCA's currency codes). */
export function currencySymbol(moneda: string): string {
  if (moneda === 'PES') return '$';
  if (moneda === 'DOL') return 'US$';
  if (moneda === '060') return '€';
  return moneda;
}

/** A 2-decimal amount in the document's currency: "$ 1.234,56", "US$ 10,00". */
export function formatAmount(amount: string, moneda: string): string {
  const pesos = formatMoney(amount);
  return moneda === 'PES' ? pesos : pesos.replace('$', currencySymbol(moneda));
}

/** A unit price: 2 decimals, up to 4 when the ERP keeps them. */
export const formatUnitPrice = (text: string) => formatDecimal(text, 2, 4);

/** A quantity: as few decimals as it has, up to 4. */
export const formatQuantity = (text: string) => formatDecimal(text, 0, 4);

/** An IVA rate: "21%", "10,5%". */
export const formatRate = (text: string) => `${formatDecimal(text, 0, 2)}%`;

/** Whether a receiver's IVA condition is that of a final consumer (as the ERP writes it). */
export function isConsumidorFinal(condIva: string): boolean {
  return /consumidor\s+final/i.test(condIva);
}
