import { Type } from 'typebox';
import { Envelope, NullableString } from './envelope.js';

export const Profile = Type.Object({
  nombre: Type.String(),
  dni_cuit: Type.String(),
  email: Type.String(),
  telefono: NullableString(),
  last_login: NullableString({ format: 'date-time' }),
});

export const ProfileResponse = Envelope(Profile);

/** Only the contact data is editable; anything else is refused, never applied (422). */
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
  },
  { additionalProperties: false, minProperties: 1 },
);
