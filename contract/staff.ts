import { Type, type TSchema } from 'typebox';
import { Envelope, MAX_INT4, NullableString } from './envelope.js';

/*
 * The business's console (docs/staff.md; DESIGN "The staff door"): what a tenant's staff read and
 * do, entered with the ERP administrative system's RS256 tokens. Every route is the tenant's of
 * the token: a `tenant_id` in the query or the body that names another is 403 FORBIDDEN.
 */

/** Lists: `limit` 1-200 (50 when absent) and `offset`. */
export const STAFF_DEFAULT_LIMIT = 50;
export const STAFF_MAX_LIMIT = 200;

/** `motivo`: why a person acted, kept in the audit. */
export const MAX_MOTIVO = 500;

const TenantId = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: MAX_INT4,
    description: "The token's tenant, when given: another tenant is 403 FORBIDDEN",
  }),
);
const SucursalFilter = Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INT4 }));

const Page = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: STAFF_MAX_LIMIT,
      description: `${STAFF_DEFAULT_LIMIT} when absent`,
    }),
  ),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_INT4, description: '0 when absent' }),
  ),
};

const Day = Type.String({
  format: 'date',
  description: "YYYY-MM-DD, a day of the tenant's calendar (inclusive)",
});

/** Amounts are numbers with 2 decimals, as the customer's routes answer them. */
const Amount = Type.Number({ description: 'Amount with 2 decimals' });
/** A moment, ISO 8601 with the tenant's UTC offset (its time zone, `-03:00` in Argentina). */
const Moment = Type.String({
  format: 'date-time',
  description: "ISO 8601 in the tenant's time zone",
});
const NullableMoment = NullableString({
  format: 'date-time',
  description: "ISO 8601 in the tenant's time zone; null when it has not happened",
});

function ListOf<T extends TSchema>(item: T) {
  return Envelope(
    Type.Object({ items: Type.Array(item), total: Type.Integer(), has_more: Type.Boolean() }),
  );
}

export const PAYMENT_STATES = [
  'pending',
  'issued',
  'approved',
  'rejected',
  'cancelled',
  'refunded',
] as const;

/** Why a payment or a transfer waits for a person (DESIGN "The staff door", `atencion`). */
export const ATTENTION_REASONS = [
  'recibo_fallido',
  'aprobacion_rechazada',
  'checkout_sin_resolver',
  'transferencia_sin_cliente',
  'transferencia_revertida',
] as const;
export type AttentionReason = (typeof ATTENTION_REASONS)[number];

const AttentionReasonSchema = Type.Unsafe<AttentionReason>({
  type: 'string',
  enum: [...ATTENTION_REASONS],
});
const NullableAttention = Type.Unsafe<AttentionReason | null>({
  type: ['string', 'null'],
  enum: [...ATTENTION_REASONS, null],
  description: 'Why it needs a person (GET /portal/comercio/atencion), or null',
});

export const STAFF_ACTIONS = [
  'reintentar_recibo',
  'devolver',
  'desbloquear',
  'cerrar_sesiones',
  'acceso',
  'enlace',
  'invitar',
  'asignar_transferencia',
] as const;
export type StaffAction = (typeof STAFF_ACTIONS)[number];

export const StaffTenantQuery = Type.Object({ tenant_id: TenantId });

const Collected = Type.Object({
  cantidad: Type.Integer(),
  monto: Amount,
  por_metodo: Type.Array(
    Type.Object({
      metodo: Type.String(),
      metodo_nombre: Type.String(),
      cantidad: Type.Integer(),
      monto: Amount,
    }),
    { description: 'The same, by gateway (an addition)' },
  ),
});

export const StaffSummaryResponse = Envelope(
  Type.Object({
    clientes: Type.Object({
      con_cuenta: Type.Integer({ description: 'Portal accounts' }),
      activos_30_dias: Type.Integer({ description: 'Accounts that logged in in the last 30 days' }),
      bloqueados: Type.Integer({ description: 'Accounts locked now (failed logins)' }),
    }),
    cobros: Type.Object({
      hoy: Collected,
      ultimos_30_dias: Collected,
    }),
    atencion: Type.Integer({ description: 'Items of GET /portal/comercio/atencion' }),
  }),
);

export const StaffPaymentsQuery = Type.Object({
  tenant_id: TenantId,
  estado: Type.Optional(Type.Unsafe<(typeof PAYMENT_STATES)[number]>({ enum: PAYMENT_STATES })),
  desde: Type.Optional(Day),
  hasta: Type.Optional(Day),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'A name (any part), a DNI/CUIT (its digits) or a payment id',
    }),
  ),
  sucursal_id: SucursalFilter,
  ...Page,
});

/** The CSV takes the list's filters without the page: it holds every match. */
export const StaffPaymentsCsvQuery = Type.Object({
  tenant_id: TenantId,
  estado: Type.Optional(Type.Unsafe<(typeof PAYMENT_STATES)[number]>({ enum: PAYMENT_STATES })),
  desde: Type.Optional(Day),
  hasta: Type.Optional(Day),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  sucursal_id: SucursalFilter,
});

const StaffPaymentFields = {
  payment_id: Type.Integer(),
  fecha: Moment,
  sucursal_id: Type.Integer(),
  cliente: Type.Object({
    cnro: Type.Integer(),
    nombre: Type.String(),
    dni_cuit: Type.String(),
  }),
  metodo: Type.String({ description: 'The gateway id (mercadopago, ualabis, sandbox)' }),
  metodo_nombre: Type.String({ description: 'The gateway as people name it' }),
  monto: Amount,
  estado: Type.String(),
  recibo_numero: NullableString(),
  atencion: NullableAttention,
  pagado_con_enlace: Type.Boolean({ description: 'Started from a pay link (docs/pay-links.md)' }),
};

const StaffPaymentItem = Type.Object(StaffPaymentFields);

export const StaffPaymentListResponse = ListOf(StaffPaymentItem);

export const StaffPaymentParams = Type.Object({
  id: Type.String({ pattern: '^[0-9]{1,18}$', description: 'portal_payments.id' }),
});

export const StaffPaymentResponse = Envelope(
  Type.Object({
    ...StaffPaymentFields,
    facturas: Type.Array(
      Type.Object({
        id: Type.String(),
        tipo: Type.String(),
        numero: Type.String(),
        monto: Type.Number({ description: 'What the debt owed when the payment was made' }),
        pago: Type.Number({ description: 'What the payment assigned to it' }),
      }),
    ),
    creado: Moment,
    emitido: NullableMoment,
    aprobado: NullableMoment,
    rechazado: NullableMoment,
    cancelado: NullableMoment,
    devuelto: NullableMoment,
    recibo_fecha: NullableMoment,
    recibo_error: NullableString(),
    gateway: Type.Object({
      status: NullableString({ description: "The gateway's last status for it" }),
      detail: NullableString({ description: "The gateway's status detail" }),
    }),
  }),
);

const AttentionItem = Type.Object({
  payment_id: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
  transferencia_id: NullableString(),
  motivo: AttentionReasonSchema,
  detalle: Type.String({ description: 'What happened and what to do, in Spanish' }),
  desde: Moment,
});

export const StaffAttentionQuery = Type.Object({ tenant_id: TenantId, ...Page });
export const StaffAttentionResponse = ListOf(AttentionItem);

export const StaffClientsQuery = Type.Object({
  tenant_id: TenantId,
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'A name (any part), a DNI/CUIT (its digits) or an e-mail',
    }),
  ),
  sucursal_id: SucursalFilter,
  ...Page,
});

const StaffClientItem = Type.Object({
  portal_user_id: Type.String({ format: 'uuid' }),
  sucursal_id: Type.Integer(),
  cnro: Type.Integer(),
  nombre: Type.String(),
  dni_cuit: Type.String(),
  email: Type.String(),
  telefono: NullableString(),
  registrado: Moment,
  last_login: NullableMoment,
  bloqueado_hasta: NullableString({
    format: 'date-time',
    description: 'Until when failed logins lock it; null when not locked now',
  }),
  sesion_activa: Type.Boolean({ description: 'It holds a refresh token still valid' }),
  avisos: Type.Boolean({ description: 'Due-date reminders on' }),
  habilitado: Type.Boolean({ description: 'The business lets it in (acceso)' }),
});

export const StaffClientListResponse = ListOf(StaffClientItem);
export const StaffClientResponse = Envelope(StaffClientItem);

export const StaffAuditQuery = Type.Object({ tenant_id: TenantId, ...Page });
export const StaffAuditResponse = ListOf(
  Type.Object({
    fecha: Moment,
    sub: Type.String(),
    nombre: NullableString(),
    accion: Type.Unsafe<StaffAction>({ type: 'string', enum: [...STAFF_ACTIONS] }),
    objeto: Type.String({ description: 'What it acted on: `pago 41`, `cliente <uuid>`' }),
    motivo: NullableString(),
  }),
);

const Motivo = Type.String({ minLength: 1, maxLength: MAX_MOTIVO });

/** Actions whose reason is optional still keep one when given. */
export const StaffOptionalReasonBody = Type.Object({
  tenant_id: TenantId,
  motivo: Type.Optional(Motivo),
});

export const StaffRefundBody = Type.Object({ tenant_id: TenantId, motivo: Motivo });

export const StaffAccessBody = Type.Object({
  tenant_id: TenantId,
  habilitado: Type.Boolean(),
  motivo: Motivo,
});

export const StaffClientParams = Type.Object({
  portal_user_id: Type.String({ maxLength: 64 }),
});
export const StaffClientActionQuery = Type.Object({
  tenant_id: TenantId,
  sucursal_id: Type.Integer({ minimum: 1, maximum: MAX_INT4 }),
});

export const StaffRetryReceiptResponse = Envelope(
  Type.Object({
    payment_id: Type.Integer(),
    recibo_numero: NullableString(),
    recibo_error: NullableString(),
  }),
);

export const StaffRefundResponse = Envelope(
  Type.Object({ payment_id: Type.Integer(), status: Type.Literal('refunded') }),
);

export const CsvResponse = {
  description:
    'The list as CSV: UTF-8 with a byte order mark, `;` between fields, decimal commas (as a spreadsheet in es-AR opens it)',
  content: { 'text/csv': { schema: { type: 'string' } } },
};

export const StaffTransferParams = Type.Object({
  id: Type.String({ pattern: '^[0-9]{1,18}$', description: 'The credit (transferencia_id)' }),
});

/** Gives a credit that waits for a person to a customer record (docs/transfers.md). */
export const StaffAssignTransferBody = Type.Object({
  tenant_id: TenantId,
  sucursal_id: Type.Integer({ minimum: 1, maximum: MAX_INT4 }),
  cnro: Type.Integer({ minimum: 1, maximum: MAX_INT4 }),
  motivo: Motivo,
});

export const StaffAssignTransferResponse = Envelope(
  Type.Object({
    transferencia_id: Type.String(),
    estado: Type.Unsafe<'aplicada' | 'pendiente'>({
      type: 'string',
      enum: ['aplicada', 'pendiente'],
      description: '`aplicada`: its receipt is written; `pendiente`: the janitor writes it soon',
    }),
    recibo_id: NullableString({ description: 'The receipt in the customer-data schema' }),
  }),
);
