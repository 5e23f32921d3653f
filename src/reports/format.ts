import { centsOf } from '../platform/money.js';

/** `$ 1.234,56` from a 2-decimal amount ("1234.56"), the way Argentine documents print money. */
export function formatMoney(amount: string): string {
  const cents = centsOf(amount);
  const abs = Math.abs(cents);
  const units = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  const text = `$ ${units},${String(abs % 100).padStart(2, '0')}`;
  return cents < 0 ? `-${text}` : text;
}

/** `21/11/2026` from `2026-11-21`. */
export function formatDate(date: string): string {
  const [year, month, day] = date.split('-');
  return `${day ?? ''}/${month ?? ''}/${year ?? ''}`;
}
