/** The shapes of the API's `data` the pages use (docs/api.md, docs/decisions.md, docs/). */

export interface Sucursal {
  id: number;
  nombre: string;
}

/** GET /portal/empresas/{tenant_id}: public, the tenant's display name and sucursales. */
export interface Tenant {
  id: number;
  nombre: string;
  sucursales: Sucursal[];
}

export interface PortalUser {
  portal_user_id: string;
  nombre: string;
  email: string;
}

export interface LoginData {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  user: PortalUser;
}

export interface RefreshData {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

/** GET /portal/auth/me (docs/decisions.md #15). */
export interface Me {
  portal_user_id: string;
  nombre: string;
  email: string;
  dni_cuit: string;
  telefono: string | null;
  tenant_id: number;
  sucursal_id: number;
  last_login: string | null;
}

export interface AccountSummary {
  nombre: string;
  saldo_total: number;
  facturas_vencidas: number;
  facturas_pendientes: number;
  ultimo_pago: { fecha: string; monto: number } | null;
}

export interface Debt {
  id: string;
  comprobante: string;
  nrocomp: string;
  fecha: string;
  vencimiento: string | null;
  debe: number;
  vencido: boolean;
}

export interface PaymentStartData {
  payment_id: number;
  redirect_url: string;
  payment_method: string;
}

export type PaymentStatus =
  'pending' | 'issued' | 'approved' | 'rejected' | 'refunded' | 'cancelled';

/** An item of GET /portal/pagos/historial, and GET /portal/pagos/{id}. */
export interface Payment {
  id: number;
  fecha: string;
  metodo: string;
  monto: number;
  /** A PaymentStatus; typed as string so a state added later does not break the page. */
  estado: string;
  facturas_pagadas: { tipo: string; numero: string; monto: number }[];
  recibo_numero: string | null;
}

export interface MessageData {
  message: string;
}

/** An item of GET /portal/cupones/mis-cupones. */
export interface Coupon {
  cupon_id: string;
  codigo_barras: string;
  monto: number;
  /** pending, used, expired, cancelled; a string so a state added later does not break. */
  estado: string;
  fecha_generacion: string;
  fecha_vencimiento: string;
}

export interface CouponPage {
  cupones: Coupon[];
  total: number;
  has_more: boolean;
}

/** POST /portal/cupones/generar. */
export interface GeneratedCoupon {
  cupon_id: string;
  codigo_barras: string;
  monto: number;
  fecha_vencimiento: string;
  facturas: { id: string; tipo: string; numero: string; monto: number }[];
}

/** GET and PUT /portal/perfil. */
export interface Profile {
  nombre: string;
  dni_cuit: string;
  email: string;
  telefono: string | null;
  last_login: string | null;
}

/** An item of GET /portal/recibos: any receipt of the customer, the counter's included. */
export interface Receipt {
  id: string;
  comprobante: string;
  nrocomp: string;
  fecha: string;
  monto: number;
  /** The portal payment that produced it; null for a receipt the business issued itself. */
  pago_id: number | null;
  facturas: { id: string; comprobante: string; nrocomp: string; monto: number }[];
}

export interface ReceiptPage {
  recibos: Receipt[];
  total: number;
  has_more: boolean;
}
