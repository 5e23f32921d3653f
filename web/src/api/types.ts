/*
 * Names for the shapes of the API's `data` the pages use, each the route table's answer of a
 * route (contract/routes.ts, read as types only: erased at build), so a field the server renames
 * fails `npm run check` here instead of a page at run time. A call's own answer needs no name:
 * `authCall(routes.x, ...)` is typed from the table.
 */
import type { BodyOf, DataOf } from '../../../contract/routes.js';

/** GET /portal/empresas/{tenant_id}: public, the tenant's display name and sucursales. */
export type Tenant = DataOf<'getTenant'>;
export type Sucursal = Tenant['sucursales'][number];

/** POST /portal/auth/login's body. */
export type Credentials = BodyOf<'login'>;
/** GET /portal/auth/me (docs/decisions.md #15). */
export type Me = DataOf<'getSessionUser'>;

export type AccountSummary = DataOf<'getAccountSummary'>;
export type Debt = DataOf<'listDebts'>['items'][number];

/** An item of GET /portal/pagos/historial, and GET /portal/pagos/{id}. */
export type Payment = DataOf<'getPayment'>;
/** GET /portal/pagos/{id}/resultado: a payment's status through the return address's token. */
export type PaymentResult = DataOf<'getPaymentResult'>;

/** GET /portal/cupones/mis-cupones. */
export type CouponPage = DataOf<'listCoupons'>;
export type Coupon = CouponPage['cupones'][number];
/** POST /portal/cupones/generar. */
export type GeneratedCoupon = DataOf<'generateCoupon'>;

/** GET and PUT /portal/perfil. */
export type Profile = DataOf<'getProfile'>;

/** GET /portal/recibos: any receipt of the customer, the counter's included. */
export type ReceiptPage = DataOf<'listReceipts'>;
export type Receipt = ReceiptPage['recibos'][number];

/** GET /portal/estado-cuenta: a period's movements with the running balance, and today's aging. */
export type Statement = DataOf<'getStatement'>;
export type Movement = Statement['movimientos'][number];
export type StatementAging = Statement['antiguedad'];

/** GET /portal/facturas: a period's invoices, debit and credit notes, paid or not. */
export type InvoicePage = DataOf<'listInvoices'>;
export type Invoice = InvoicePage['items'][number];

/** GET /portal/transferencia: the customer's own CVU at the business's transfer provider. */
export type TransferAccount = DataOf<'getTransferAccount'>;
