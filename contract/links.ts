import { Type } from 'typebox';
import { Envelope, MAX_INT4, NullableString } from './envelope.js';

/*
 * Pay links and invitations (docs/pay-links.md; DESIGN "Pay links and invitations"): a link lets
 * its holder see what one account owes and pay it; an invitation brings a customer of the ERP
 * without an account. Their tokens travel in an address's fragment and are stored hashed.
 */

/** A link's or an invitation's token: 256 random bits, base64url. */
const LinkToken = Type.String({ minLength: 16, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' });

export const PayLinkExchangeBody = Type.Object(
  { token: LinkToken },
  { additionalProperties: false },
);

export const PayLinkExchangeResponse = Envelope(
  Type.Object({
    access_token: Type.String(),
    expires_in: Type.Literal(900),
    alcance: Type.Literal('pago'),
    user: Type.Object({
      portal_user_id: Type.String({ format: 'uuid' }),
      nombre: Type.String(),
    }),
  }),
);

export const PAY_LINK_REASONS = ['aviso', 'cliente', 'comercio'] as const;

const PayLinkItem = Type.Object({
  id: Type.Integer(),
  motivo: Type.Unsafe<(typeof PAY_LINK_REASONS)[number]>({
    type: 'string',
    enum: [...PAY_LINK_REASONS],
  }),
  creado: Type.String({ format: 'date-time' }),
  vence: Type.String({ format: 'date-time' }),
  ultimo_uso: NullableString({ format: 'date-time' }),
  usos: Type.Integer(),
});

export const PayLinkListResponse = Envelope(Type.Object({ items: Type.Array(PayLinkItem) }));

export const PayLinkCreatedResponse = Envelope(
  Type.Object({
    id: Type.Integer(),
    url: Type.String({ description: '{web}/e/{tenant_id}/pagar#enlace={token}: shown once' }),
    vence: Type.String({ format: 'date-time' }),
  }),
);

export const PayLinkParams = Type.Object({
  id: Type.String({ pattern: '^[0-9]{1,18}$' }),
});

export const PayLinkRevokedResponse = Envelope(
  Type.Object({ id: Type.Integer(), revocado: Type.Literal(true) }),
);

export const StaffPayLinkResponse = Envelope(
  Type.Object({
    url: Type.String(),
    vence: Type.String({ format: 'date-time' }),
  }),
);

export const InvitationBody = Type.Object({
  tenant_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INT4 })),
  sucursal_id: Type.Integer({ minimum: 1, maximum: MAX_INT4 }),
  cnro: Type.Integer({ minimum: 1, maximum: MAX_INT4 }),
  email: Type.String({ format: 'email', maxLength: 254 }),
});

export const InvitationResponse = Envelope(
  Type.Object({ enviada: Type.Literal(true), vence: Type.String({ format: 'date-time' }) }),
);

export const InvitationReadBody = Type.Object(
  { invitacion: LinkToken },
  { additionalProperties: false },
);

export const InvitationReadResponse = Envelope(
  Type.Object({
    tenant_id: Type.Integer(),
    sucursal_id: Type.Integer(),
    nombre: Type.String({ description: "The invited customer's name, as the ERP has it" }),
    email: Type.String({ description: 'The address the invitation went to' }),
    vence: Type.String({ format: 'date-time' }),
  }),
);

/** `POST /portal/auth/register` from an invitation: it names the customer. */
export const InvitationRegisterFields = {
  invitacion: LinkToken,
};

export const StaffInvitationListResponse = Envelope(
  Type.Object({
    items: Type.Array(
      Type.Object({
        sucursal_id: Type.Integer(),
        cnro: Type.Integer(),
        email: Type.String(),
        estado: Type.Unsafe<'enviada' | 'abierta' | 'registrada' | 'vencida'>({
          type: 'string',
          enum: ['enviada', 'abierta', 'registrada', 'vencida'],
        }),
        enviada: Type.String({ format: 'date-time' }),
        vence: Type.String({ format: 'date-time' }),
      }),
    ),
    total: Type.Integer(),
    has_more: Type.Boolean(),
    invitados: Type.Integer({ description: 'Customers invited (their live or spent invitation)' }),
    registrados: Type.Integer({ description: 'Of them, those who registered from it' }),
  }),
);

/** At most this many rows in one CSV of invitations. */
export const MAX_INVITATION_ROWS = 5_000;

/** Why a row of the CSV was not sent. */
export const INVITATION_ROW_REFUSALS = [
  'fila_invalida',
  'sucursal_invalida',
  'cliente_inexistente',
  'ya_tiene_cuenta',
  'invitado_hoy',
  'repetido',
] as const;
export type InvitationRowRefusal = (typeof INVITATION_ROW_REFUSALS)[number];

export const InvitationCsvBody = Type.String({
  maxLength: 1_000_000,
  description:
    'text/csv, UTF-8: one invitation a line, `sucursal_id;cnro;email` (a header line with those names is skipped), at most 5,000 rows',
});

export const InvitationCsvResponse = Envelope(
  Type.Object({
    items: Type.Array(
      Type.Object({
        fila: Type.Integer({ description: 'The line of the CSV, from 1' }),
        sucursal_id: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
        cnro: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
        email: NullableString(),
        enviada: Type.Boolean(),
        motivo: Type.Unsafe<InvitationRowRefusal | null>({
          type: ['string', 'null'],
          enum: [...INVITATION_ROW_REFUSALS, null],
          description: 'Why it was not sent; null when it was',
        }),
      }),
    ),
    enviadas: Type.Integer(),
    no_enviadas: Type.Integer(),
  }),
);
