import { Type } from 'typebox';
import { Envelope, MAX_INT4, NullableString } from './envelope.js';

export const TenantParams = Type.Object({
  tenant_id: Type.Integer({ minimum: 1, maximum: MAX_INT4 }),
});

export const TenantResponse = Envelope(
  Type.Object({
    id: Type.Integer({ description: 'The tenant_id' }),
    nombre: Type.String({ description: 'The tenant’s display name' }),
    sucursales: Type.Array(Type.Object({ id: Type.Integer(), nombre: Type.String() })),
    marca: Type.Object(
      {
        color: NullableString({ description: 'The brand colour, #rrggbb' }),
        telefono: NullableString(),
        email: NullableString(),
        whatsapp: NullableString({ description: 'Digits, with + when given' }),
        sitio_web: NullableString({ description: 'An http(s) URL' }),
        direccion: NullableString(),
      },
      { description: "The business's contact and colour, from ini portal.marca.* (an addition)" },
    ),
    logo_url: NullableString({
      description:
        'Where the logo is (versioned: it may be cached for long), or null without a valid one (an addition)',
    }),
    redes_cobranza: NullableString({
      description: 'Where a coupon can be paid, from ini portal.cupones.redes (an addition)',
    }),
    cuit: NullableString({
      description:
        "The business's CUIT, 11 digits, from the ERP's fiscal data (public.empfiscal) when it has it; printed on coupons (an addition)",
    }),
    zona_horaria: Type.String({
      description:
        "The tenant's IANA time zone (sistema.zona_horaria, else America/Argentina/Buenos_Aires), for times of day (an addition)",
    }),
    avisos_habilitados: Type.Boolean({
      description:
        'Whether the business sends due-date reminders (ini portal.avisos.habilitado): the profile offers their switch only then (an addition)',
    }),
    avisos_etapas: Type.Object(
      {
        dias_antes: Type.Integer({
          minimum: 0,
          description: 'Days before the due date of the first reminder; 0: none before',
        }),
        dias_vencido: Type.Array(Type.Integer({ minimum: 1 }), {
          description: 'Days after the due date of each overdue reminder, ascending',
        }),
      },
      {
        description:
          'When the reminders go (portal.avisos.dias_antes, portal.avisos.dias_vencido, with their defaults), named beside the switch (an addition)',
      },
    ),
  }),
);
