import { Type } from 'typebox';
import { Envelope, NullableString } from './envelope.js';

export const Profile = Type.Object({
  nombre: Type.String(),
  dni_cuit: Type.String(),
  email: Type.String(),
  telefono: NullableString(),
  last_login: NullableString({ format: 'date-time' }),
  avisos_vencimiento: Type.Boolean({
    description: 'Due-date reminders by e-mail (addition); on unless the customer turned them off',
  }),
});

export const ProfileResponse = Envelope(Profile);

/**
 * Only the contact data and the reminders switch are editable; anything else is refused, never
 * applied (422).
 */
export const ProfileUpdateBody = Type.Object(
  {
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    telefono: Type.Optional(
      Type.String({
        maxLength: 30,
        pattern: '^[0-9+()\\-. ]*$',
        description: 'Digits, spaces and + ( ) - . ; an empty string clears it',
      }),
    ),
    avisos_vencimiento: Type.Optional(
      Type.Boolean({ description: 'Due-date reminders by e-mail on or off (addition)' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
