/**
 * docs/erp.md "The customer-data schema": a sucursal's customer data lives in `public` when customers are centralized,
 * else in `suc` + its id zero-padded to 4 digits.
 */
export function customerSchemaFor(sucursal: {
  id: number;
  clientes_centralizados: boolean;
}): string {
  if (sucursal.clientes_centralizados) return 'public';
  return `suc${String(sucursal.id).padStart(4, '0')}`;
}
