/**
 * The one interface every payment gateway implements (docs/erp.md "Payment gateways"): create a
 * checkout, verify and parse a notification, fetch the gateway's truth about a payment, cancel a
 * checkout, refund. Adapters are built per tenant from its `portal.gateway.<id>.*` settings.
 */

export interface CheckoutItem {
  /** The debt's id (ordcta.id). */
  id: string;
  title: string;
  /** Decimal string with 2 decimals, e.g. "1250.50". */
  amount: string;
}

export interface CheckoutRequest {
  /** portal_payments.id */
  paymentId: number;
  /** Our correlation id (portal_payments.reference), sent as the gateway's external reference. */
  reference: string;
  /** Total, decimal string with 2 decimals. */
  amount: string;
  currency: 'ARS';
  description: string;
  items: CheckoutItem[];
  /** Where the gateway must send notifications (our webhook URL, with tenant, sucursal, token). */
  notificationUrl: string;
  /** Where the payer's browser returns, built from the request's Origin. */
  backUrls: { success: string; failure: string; pending: string };
  /** The checkout must stop accepting payments at this instant (PORTAL_CHECKOUT_TTL_MINUTES). */
  expiresAt: Date;
  /** Same value on every retry of this operation (X-Idempotency-Key where supported). */
  idempotencyKey: string;
}

export interface CheckoutResult {
  /** The gateway's id of the checkout (Mercado Pago preference id, Ualá order uuid, ...). */
  checkoutId: string;
  /** Where to send the payer. */
  redirectUrl: string;
  /** When the gateway already names the payment (Ualá: the order uuid), portal_payments.gateway_payment_id. */
  gatewayPaymentId?: string;
  /** The complete gateway answer, kept in portal_payments.gateway_response. */
  raw: unknown;
}

export interface NotificationInput {
  /** Lower-case header names. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The webhook URL's query string, gateway additions included (e.g. data.id, type). */
  query: Readonly<Record<string, string | undefined>>;
  body: unknown;
}

export type ParsedNotification =
  /**
   * A notification about one payment: fetch it to learn its real state. `signedRequestId` is the
   * notification's own id when the signature covers it (Mercado Pago's `x-request-id`), the only
   * kind of id a duplicate may be recognised by: an unsigned header is anyone's to set.
   */
  | { kind: 'payment'; gatewayPaymentId: string; signedRequestId?: string }
  /** A notification kind the portal does not act on (merchant orders, legacy topics...). */
  | { kind: 'ignored'; reason: string };

/** Thrown by parseNotification when the signature does not verify (the webhook answers 401). */
export class InvalidSignatureError extends Error {
  constructor(message = 'invalid webhook signature') {
    super(message);
    this.name = 'InvalidSignatureError';
  }
}

/**
 * Thrown by parseNotification when the notification names a payment in a form its gateway never
 * gives one (the webhook answers 400 before asking the gateway anything).
 */
export class MalformedNotificationError extends Error {
  constructor(message = 'malformed webhook notification') {
    super(message);
    this.name = 'MalformedNotificationError';
  }
}

/** Every provider's call failures (src/platform/providers/errors.ts), as the gateways know them. */
export { GatewayError, isNotFound } from '../../../platform/providers/errors.js';

/** The gateway's own view of a payment: the webhook trusts this, never the notification body. */
export type GatewayPaymentStatus =
  | 'approved'
  | 'rejected'
  | 'pending'
  | 'cancelled'
  | 'refunded'
  /** A card dispute the payer won: the money went back like a refund. */
  | 'charged_back';

export interface GatewayPayment {
  /** The gateway's payment id (portal_payments.gateway_payment_id). */
  id: string;
  status: GatewayPaymentStatus;
  /** Decimal string with 2 decimals. */
  amount: string;
  currency: string;
  /** Our reference as the gateway stored it (external_reference), if any. */
  reference: string | null;
  raw: unknown;
}

export interface RefundResult {
  refundId: string;
  raw: unknown;
}

export interface GatewayAdapter {
  /** Its definition's id (table.ts). */
  readonly id: string;
  createCheckout(request: CheckoutRequest): Promise<CheckoutResult>;
  /** Verifies the signature (throws InvalidSignatureError) and says which payment it is about. */
  parseNotification(input: NotificationInput): Promise<ParsedNotification>;
  fetchPayment(gatewayPaymentId: string): Promise<GatewayPayment>;
  /** The payment made for one of our references, if the payer paid (checkout expiry job). */
  findPaymentByReference(reference: string): Promise<GatewayPayment | undefined>;
  /**
   * Stops a checkout or a pending payment from being paid. 'not_supported' when the gateway has
   * no such call (the cancel is then local only).
   */
  cancel(target: {
    checkoutId: string | null;
    gatewayPaymentId: string | null;
    idempotencyKey: string;
  }): Promise<'cancelled' | 'not_supported'>;
  /** Full refund of an approved payment. */
  refund(gatewayPaymentId: string, idempotencyKey: string): Promise<RefundResult>;
}

/** What an adapter factory receives: the tenant's `portal.gateway.<id>.*` keys, without the prefix. */
export type GatewaySettings = ReadonlyMap<string, string>;

export interface GatewayHttpOptions {
  /** Per call; a gateway that does not answer in time is a GatewayError. */
  timeoutMs: number;
  /**
   * PORTAL_GATEWAY_ALLOWED_ORIGINS: origins a configured gateway URL may use besides the
   * gateway's official https hosts (url-policy.ts).
   */
  allowedOrigins: readonly string[];
}
