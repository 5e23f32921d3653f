/*
 * The shapes of the API's `data` the pages use: the server's own schemas (contract/), read as
 * types only (erased at build), so a field the server renames fails `npm run check` here
 * instead of a page at run time.
 */
import type { Static, TSchema } from 'typebox';
import type { AccountSummaryResponse, DebtsResponse } from '../../../contract/account.js';
import type {
  LoginResponse,
  MeResponse,
  MessageResponse,
  RefreshResponse,
  RegisterResponse,
} from '../../../contract/auth.js';
import type { CouponResponse, GenerateResponse, ListResponse } from '../../../contract/coupons.js';
import type { InvoiceListResponse } from '../../../contract/invoices.js';
import type { PaymentResponse, ResultResponse, StartResponse } from '../../../contract/payments.js';
import type { ProfileResponse } from '../../../contract/profile.js';
import type { ReceiptListResponse } from '../../../contract/receipts.js';
import type { StatementResponse } from '../../../contract/statement.js';
import type { TenantResponse } from '../../../contract/tenants.js';

/** The `data` of an answer whose schema is `Envelope(...)`. */
type DataOf<S extends TSchema> = Static<S> extends { data: infer D } ? D : never;

/** GET /portal/empresas/{tenant_id}: public, the tenant's display name and sucursales. */
export type Tenant = DataOf<typeof TenantResponse>;
export type Sucursal = Tenant['sucursales'][number];

export type PortalUser = DataOf<typeof RegisterResponse>;
export type LoginData = DataOf<typeof LoginResponse>;
export type RefreshData = DataOf<typeof RefreshResponse>;
/** GET /portal/auth/me (docs/decisions.md #15). */
export type Me = DataOf<typeof MeResponse>;
export type MessageData = DataOf<typeof MessageResponse>;

export type AccountSummary = DataOf<typeof AccountSummaryResponse>;
export type Debt = DataOf<typeof DebtsResponse>['items'][number];

export type PaymentStartData = DataOf<typeof StartResponse>;
/** An item of GET /portal/pagos/historial, and GET /portal/pagos/{id}. */
export type Payment = DataOf<typeof PaymentResponse>;
/** GET /portal/pagos/{id}/resultado: a payment's status through the return address's token. */
export type PaymentResult = DataOf<typeof ResultResponse>;
export type PaymentStatus =
  'pending' | 'issued' | 'approved' | 'rejected' | 'refunded' | 'cancelled';

/** GET /portal/cupones/mis-cupones. */
export type CouponPage = DataOf<typeof ListResponse>;
export type Coupon = CouponPage['cupones'][number];
/** GET /portal/cupones/{codigo_barras}: one coupon with the invoices it pays. */
export type CouponDetail = DataOf<typeof CouponResponse>;
/** POST /portal/cupones/generar. */
export type GeneratedCoupon = DataOf<typeof GenerateResponse>;

/** GET and PUT /portal/perfil. */
export type Profile = DataOf<typeof ProfileResponse>;

/** GET /portal/recibos: any receipt of the customer, the counter's included. */
export type ReceiptPage = DataOf<typeof ReceiptListResponse>;
export type Receipt = ReceiptPage['recibos'][number];

/** GET /portal/estado-cuenta: a period's movements with the running balance, and today's aging. */
export type Statement = DataOf<typeof StatementResponse>;
export type Movement = Statement['movimientos'][number];
export type StatementAging = Statement['antiguedad'];

/** GET /portal/facturas: a period's invoices, debit and credit notes, paid or not. */
export type InvoicePage = DataOf<typeof InvoiceListResponse>;
export type Invoice = InvoicePage['items'][number];
