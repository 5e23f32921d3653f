import { Type, type Static } from 'typebox';
import { Envelope, NullableString } from './envelope.js';

/*
 * Bank transfers (docs/transfers.md): the customer's own account at the tenant's collection
 * provider, and the provider's notifications.
 */

/** `GET /portal/transferencia`: where the customer transfers to, as the transfer will show it. */
export const TransferAccountSchema = Type.Object({
  cvu: Type.String({ pattern: '^[0-9]{22}$', description: "The customer's own CVU (22 digits)" }),
  alias: NullableString({ description: 'Its alias, when the provider gives one' }),
  titular: Type.String({ description: "The business's name, as the transfer shows it" }),
  cuit: NullableString({ description: "The business's CUIT (`30-71234567-8`), when known" }),
  proveedor: Type.String({ description: 'The provider, as the customer reads it ("Cucuru")' }),
});
export type TransferAccount = Static<typeof TransferAccountSchema>;

export const TransferAccountResponse = Envelope(TransferAccountSchema);

/** The notification's address: `{proveedor}/{tenant_id}/{aviso}` (docs/transfers.md). */
export const TransferNotificationParams = Type.Object({
  proveedor: Type.String({ pattern: '^[a-z0-9_]{1,20}$' }),
  tenant_id: Type.String({ pattern: '^[0-9]{1,10}$' }),
  aviso: Type.String({ pattern: '^[a-z_]{1,40}$' }),
});

export const TransferNotificationResponse = Type.Object({ success: Type.Literal(true) });
