import type { ColumnType, Generated, JSONColumnType } from 'kysely';

/** NUMERIC columns: read as strings (exact), written as strings or numbers. */
export type Numeric = ColumnType<string, string | number, string | number>;
/** DATE columns: `YYYY-MM-DD` strings both ways. */
export type DateString = string;
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

/** docs/transfers.md "A credit's states". */
export type TransferCreditState =
  'pendiente' | 'aplicada' | 'sin_cliente' | 'revertida' | 'rechazada';

/** The system registry database. */
export interface SystemDatabase {
  tenants: {
    id: number;
    nombre: string;
    database_url: string;
    activo: Generated<boolean>;
  };
  /** Tenants whose transfer rail was found on (system/0011). */
  portal_transfer_tenants: {
    tenant_id: number;
    marked_at: Generated<Date>;
  };
  portal_expiry_due: {
    tenant_id: number;
    due_at: Timestamp;
    version: Generated<number>;
  };
  portal_idempotency_due: {
    tenant_id: number;
    due_at: Timestamp;
    version: Generated<number>;
  };
  /** Tenants with due-date reminders on, and when their next daily run is due (system/0005). */
  portal_reminders_due: {
    tenant_id: number;
    due_at: Timestamp;
    version: Generated<number>;
  };
  portal_refresh_tokens: {
    token_hash: string;
    tenant_id: number;
    sucursal_id: number;
    portal_user_id: string;
    expires_at: Timestamp;
    rotated_at: Timestamp | null;
    /** Why the token's session ended (system/0006); null while it lives. */
    ended_reason:
      | 'login'
      | 'logout'
      | 'password_change'
      | 'password_reset'
      | 'reuse'
      /** The business's staff ended the account's sessions, or disabled it (system/0008). */
      | 'staff'
      | 'disabled'
      | null;
  };
  /** Pay links (system/0009): exchanged for a token that may only pay. */
  portal_pay_links: {
    id: Generated<number>;
    token_hash: string;
    tenant_id: number;
    sucursal_id: number;
    portal_user_id: string;
    motivo: PayLinkReason;
    created_at: CreatedAt;
    expires_at: Timestamp;
    revoked_at: Timestamp | null;
    last_used_at: Timestamp | null;
    uses: Generated<number>;
  };
  /** Invitations to register (system/0009), one live per customer. */
  portal_invitations: {
    id: Generated<number>;
    token_hash: string;
    tenant_id: number;
    sucursal_id: number;
    customer_schema: string;
    cnro: number;
    email: string;
    created_at: CreatedAt;
    expires_at: Timestamp;
    opened_at: Timestamp | null;
    registered_at: Timestamp | null;
    replaced_at: Timestamp | null;
    sent_at: Timestamp | null;
  };
  portal_migrations: MigrationsTable;
}

/** Why a pay link was made (system/0009). */
export type PayLinkReason = 'aviso' | 'cliente' | 'comercio';

export interface MigrationsTable {
  name: string;
  applied_at: Generated<Date>;
}

/** ERP tables of a tenant database (docs/erp.md) plus the portal's own tables. */
export interface TenantDatabase {
  // ERP, tenant public schema
  sucursales: { id: number; nombre: string; clientes_centralizados: Generated<boolean> };
  ini: { clave: string; valor: string | null };
  // ERP, customer-data schema
  ordcon: { cnro: number; cnom: string; ccui: string };
  ordcta: {
    id: Generated<string>;
    cnro: number;
    tipo: string;
    comprobante: string;
    nrocomp: string;
    fecha: DateString;
    vencimiento: DateString | null;
    debe: Numeric;
    haber: Numeric;
    saldo: Numeric;
    anulado: Generated<boolean>;
  };
  recfac: { recibo_id: string; factura_id: string; monto: Numeric };
  /** The fiscal header, as far as the pages name a document and know its PDF (read only). */
  cbtefis: {
    ordcta_id: string;
    tipo_cbte: number;
    letra: string;
    punto_venta: number;
    numero: number;
    cae: string | null;
    cae_vto: DateString | null;
  };
  numeradores: { tipo: string; punto_venta: number; ultimo: ColumnType<number, number, number> };
  // ERP, cash schema
  movimi: {
    id: Generated<number>;
    fecha: Generated<Date>;
    tipo: string;
    cuenta_bancaria: string;
    monto: Numeric;
    concepto: string | null;
    ordcta_id: string | null;
    cnro: number | null;
  };
  // Account-ledger coupons (src/ledger/coupons), customer-data schema
  ledger_cupones: {
    id: Generated<string>;
    codigo_barras: string;
    cnro: number;
    secuencia: number;
    sucursal_id: number;
    monto: Numeric;
    estado: Generated<StoredCouponState>;
    fecha_generacion: DateString;
    fecha_vencimiento: DateString;
    used_at: Timestamp | null;
    cancelled_at: Timestamp | null;
    created_at: CreatedAt;
    updated_at: Timestamp | null;
  };
  ledger_cupon_facturas: {
    cupon_id: string;
    factura_id: string;
    orden: number;
    tipo: string;
    numero: string;
    monto: Numeric;
  };
  // Account-ledger coupons, tenant public schema: the per-customer coupon sequence
  ledger_cupon_secuencias: { cnro: number; ultimo: number };
  // Portal, customer-data schema
  portal_users: {
    id: Generated<string>;
    cnro: number;
    dni_cuit: string;
    email: string;
    telefono: string | null;
    password_hash: string;
    failed_login_attempts: Generated<number>;
    locked_until: Timestamp | null;
    last_login: Timestamp | null;
    /** The login before last_login (customer/0011), moved there by each successful login. */
    ingreso_anterior: Timestamp | null;
    refresh_token: string | null;
    refresh_token_expires: Timestamp | null;
    /** Bumped when a session ends (logout, password change or reset, refresh reuse). */
    session_version: Generated<number>;
    reset_code_hash: string | null;
    reset_code_expires: Timestamp | null;
    reset_code_attempts: Generated<number>;
    /** Reset-code requests counted in the hour from reset_window_start (docs/decisions.md #13). */
    reset_requests: Generated<number>;
    reset_window_start: Timestamp | null;
    /** The customer's choice about due-date reminders (customer/0008), on by default. */
    avisos_vencimiento: Generated<boolean>;
    /** The business lets the account in (customer/0012; docs/staff.md "acceso"). */
    acceso_habilitado: Generated<boolean>;
    created_at: CreatedAt;
    updated_at: Timestamp | null;
  };
  portal_print_config: {
    id: Generated<string>;
    portal_user_id: string;
    documento: PrintDocument;
    impresora: string;
    papel: PrintPaper;
    copias: Generated<number>;
    predeterminada: Generated<boolean>;
    created_at: CreatedAt;
    updated_at: Timestamp | null;
  };
  // Portal, tenant public schema
  portal_payments: {
    id: Generated<number>;
    portal_user_id: string;
    ordcon_id: number | null;
    tenant_id: number;
    sucursal_id: number;
    gateway: string | null;
    currency: Generated<string | null>;
    monto: Numeric | null;
    status: Generated<PaymentStatus>;
    gateway_response: JSONColumnType<object, string | null, string | null> | null;
    facturas_json: JSONColumnType<PaymentInvoice[], string, string>;
    gateway_payment_id: string | null;
    reference: string | null;
    recibo_id: string | null;
    recibo_at: Timestamp | null;
    recibo_error: string | null;
    /** The gateway's address of the issued checkout (tenant/0012). */
    checkout_url: ColumnType<string | null, string | null | undefined, string | null>;
    /** When the portal last asked the gateway without a notification (tenant/0012). */
    gateway_checked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
    /** Whether a refund reversed the ledger; null without a receipt to reverse (tenant/0011). */
    refund_ledger_reversed: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
    refund_id: string | null;
    /** The pay link it was started from (tenant/0015), if any. */
    pay_link_id: ColumnType<string | null, number | null | undefined, number | null>;
    issued_at: Timestamp | null;
    approved_at: Timestamp | null;
    rejected_at: Timestamp | null;
    refunded_at: Timestamp | null;
    cancelled_at: Timestamp | null;
    created_at: CreatedAt;
    updated_at: Timestamp | null;
  };
  /** What the business's staff did at the console (tenant/0014), append-only. */
  portal_staff_audit: {
    id: Generated<number>;
    tenant_id: number;
    sub: string;
    nombre: string | null;
    accion: string;
    objeto: string;
    motivo: string | null;
    ip: string | null;
    created_at: CreatedAt;
  };
  portal_audit_log: {
    id: Generated<number>;
    tenant_id: number;
    sucursal_id: number | null;
    portal_user_id: string | null;
    ip: string | null;
    user_agent: string | null;
    event: string;
    details: JSONColumnType<Record<string, unknown>, string | null, string | null> | null;
    created_at: CreatedAt;
  };
  portal_payment_approvals: {
    payment_id: number;
    amount: Numeric;
    currency: string;
    recorded_at: CreatedAt;
  };
  portal_payment_claims: {
    payment_id: number;
    operation: PaymentOperation;
    claimed_at: Timestamp;
  };
  portal_payment_emails: {
    payment_id: number;
    kind: PaymentEmailKind;
    sent_at: Timestamp | null;
    /** Claimed by a sender until then (tenant/0017); null when free or sent. */
    lease_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  };
  /** Due-date reminders, one row per debt and stage: claimed, then sent (tenant/0013). */
  portal_debt_reminders: {
    ordcta_id: string;
    stage: string;
    customer_schema: string;
    portal_user_id: string;
    stage_date: DateString;
    claimed_at: Timestamp;
    sent_at: Timestamp | null;
  };
  /** Each customer record's own account at a collection provider (tenant/0016). */
  portal_transfer_accounts: {
    id: Generated<number>;
    tenant_id: number;
    provider: string;
    sucursal_id: number;
    customer_schema: string;
    cnro: number;
    customer_id: string;
    cvu: string;
    alias: string | null;
    created_at: CreatedAt;
  };
  /** Every credit a collection provider reported, once (tenant/0016). */
  portal_transfer_credits: {
    id: Generated<number>;
    tenant_id: number;
    provider: string;
    credit_id: string;
    trace_id: string | null;
    cuenta: string | null;
    provider_customer_id: string | null;
    monto: Numeric;
    moneda: string;
    recibida_at: Timestamp | null;
    provider_status: string;
    estado: TransferCreditState;
    motivo: string | null;
    detalle: string | null;
    sucursal_id: number | null;
    customer_schema: string | null;
    cnro: number | null;
    recibo_id: string | null;
    a_cuenta: Numeric | null;
    ordenante_nombre: string | null;
    ordenante_cuit: string | null;
    ordenante_banco: string | null;
    liquidada_at: Timestamp | null;
    asignada_por: string | null;
    email_sent_at: Timestamp | null;
    created_at: CreatedAt;
    updated_at: Generated<Date>;
  };
  /** The webhook address last registered with each tenant's provider (tenant/0016). */
  portal_transfer_webhooks: {
    tenant_id: number;
    provider: string;
    url: string;
    token_sha256: string;
    registered_at: Timestamp;
  };
  portal_webhook_events: {
    request_id: string;
    tenant_id: number;
    sucursal_id: number;
    gateway: string | null;
    payment_id: number | null;
    received_at: CreatedAt;
  };
  portal_idempotency_keys: {
    portal_user_id: string;
    route: string;
    idempotency_key: string;
    request_hash: string;
    status: IdempotencyKeyStatus;
    locked_at: Timestamp | null;
    response_status: number | null;
    response_body: string | null;
    created_at: Timestamp;
  };
  portal_migrations: MigrationsTable;
}

/** docs/api.md "Idempotency-Key": a key is claimed by the request running it, then done. */
export type IdempotencyKeyStatus = 'in_progress' | 'done';

/** docs/decisions.md #40: the documents and papers a print configuration names. */
export type PrintDocument = 'recibo' | 'cupon';
export type PrintPaper = 'A4' | 'carta' | '80mm';

/** A coupon's stored state; `expired` is never stored, it is computed on read. */
export type StoredCouponState = 'pending' | 'used' | 'cancelled';

export type PaymentStatus =
  'pending' | 'issued' | 'approved' | 'rejected' | 'refunded' | 'cancelled';

/** Gateway operations that claim a payment while they run. */
export type PaymentOperation = 'cancel' | 'refund' | 'expire';
/** The e-mails a payment sends its portal user, once each (docs/payments.md "Payment e-mails"). */
export type PaymentEmailKind = 'pago_recibido' | 'devolucion';

/** One paid debt in portal_payments.facturas_json (amounts as JSON numbers, 2 decimals). */
export interface PaymentInvoice {
  id: string;
  tipo: string;
  numero: string;
  monto: number;
  pago: number;
  saldo: number;
}

/*
 * The ERP's electronic-invoice rows (docs/erp.md "The ERP's electronic invoices"), dates and
 * decimals as PostgreSQL writes them as text. Read by the invoices module, written only by the
 * ERP (and, for the demo and the tests, by src/dev/fiscal-fixture.ts).
 */

/** public.empfiscal: the issuer, one row per tenant. */
export interface EmpfiscalRow {
  cuit: string;
  razon_social: string;
  domicilio: string;
  cond_iva: string;
  iibb: string | null;
  inicio_actividades: DateString;
}

/** A cbtefis header: the document as ARCA authorized it (cae null: not authorized yet). */
export interface CbtefisHeader {
  tipo_cbte: number;
  letra: string;
  punto_venta: number;
  numero: number;
  fecha: DateString;
  cae: string | null;
  cae_vto: DateString | null;
  doc_tipo: number;
  doc_nro: string;
  receptor_nombre: string;
  receptor_domicilio: string | null;
  receptor_cond_iva: string;
  moneda: string;
  cotizacion: string;
  neto: string;
  iva: string;
  exento: string;
  tributos: string;
  total: string;
}

/** A cbtefisdet line. */
export interface CbtefisdetLine {
  descripcion: string;
  cantidad: string;
  precio_unitario: string;
  alicuota_iva: string;
  importe: string;
}

/** A cbtefisiva row: IVA at one rate. */
export interface CbtefisivaRate {
  alicuota: string;
  base: string;
  importe: string;
}
