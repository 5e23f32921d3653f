import { Type } from 'typebox';
import { Envelope, NullableString, TenantIdsBody } from './envelope.js';

const Identifier = {
  identifier: Type.String({
    minLength: 1,
    maxLength: 20,
    description: 'DNI (7-8 digits) or CUIT (11 digits, dashes optional)',
  }),
  identifier_type: Type.Union([Type.Literal('dni'), Type.Literal('cuit')]),
};
// Lengths are bounded here so no request makes bcrypt chew megabytes; the policy (8+ characters,
// a digit, at most 72 bytes) is checked by the service with clear messages.
const Password = Type.String({ minLength: 1, maxLength: 256 });
const Email = Type.String({ format: 'email', maxLength: 254 });

const strict = { additionalProperties: false } as const;

/**
 * The specification's register (the customer names themselves by DNI/CUIT and sucursal) or, in
 * their place, an invitation (docs/pay-links.md "Invitations"), which names the customer: one of
 * the two, checked by the service (a body with neither is 422 VALIDATION_ERROR).
 */
export const RegisterBody = Type.Object(
  {
    identifier: Type.Optional(Identifier.identifier),
    identifier_type: Type.Optional(Identifier.identifier_type),
    invitacion: Type.Optional(
      Type.String({
        minLength: 16,
        maxLength: 100,
        pattern: '^[A-Za-z0-9_-]+$',
        description: "An invitation's token, instead of identifier, identifier_type and the ids",
      }),
    ),
    email: Email,
    password: Password,
    password_confirmation: Password,
    ...TenantIdsBody,
  },
  strict,
);

export const LoginBody = Type.Object(
  { ...Identifier, password: Password, ...TenantIdsBody },
  strict,
);

export const ForgotPasswordBody = Type.Object({ ...Identifier, ...TenantIdsBody }, strict);

export const ResetPasswordBody = Type.Object(
  {
    ...Identifier,
    code: Type.String({ pattern: '^[0-9]{6}$', description: '6 digits' }),
    password: Password,
    password_confirmation: Password,
    ...TenantIdsBody,
  },
  strict,
);

export const ChangePasswordBody = Type.Object(
  { current_password: Password, new_password: Password },
  strict,
);

export const RefreshBody = Type.Object(
  { refresh_token: Type.Optional(Type.String({ maxLength: 100 })) },
  { ...strict, description: 'Empty object: the refresh token is read from the cookie' },
);

const PortalUser = Type.Object({
  portal_user_id: Type.String({ format: 'uuid' }),
  nombre: Type.String(),
  email: Type.String(),
});

const Tokens = {
  access_token: Type.String(),
  refresh_token: Type.String({ format: 'uuid' }),
  expires_in: Type.Integer(),
};

export const RegisterResponse = Envelope(PortalUser);
export const LoginResponse = Envelope(Type.Object({ ...Tokens, user: PortalUser }));
export const RefreshResponse = Envelope(Type.Object(Tokens));
export const MessageResponse = Envelope(Type.Object({ message: Type.String() }));
export const MeResponse = Envelope(
  Type.Object({
    portal_user_id: Type.String({ format: 'uuid' }),
    nombre: Type.String(),
    email: Type.String(),
    dni_cuit: Type.String(),
    telefono: NullableString(),
    tenant_id: Type.Integer(),
    sucursal_id: Type.Integer(),
    last_login: NullableString({ format: 'date-time' }),
    ingreso_anterior: NullableString({
      format: 'date-time',
      description:
        'The login before the current one (null before a second login): what "Último ingreso" shows, since last_login is the login just made (an addition)',
    }),
  }),
);
