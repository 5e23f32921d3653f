import type { Empresa } from '../api/types.js';
import type { IdentifierType } from '../lib/validation.js';
import type { PortalLink } from '../routes.js';
import { Field, IdentifierTypeField } from './field.js';
import type { FieldErrors } from './form.js';
import { needsSucursalChoice, SucursalField } from './sucursal.js';

/**
 * Who the customer is, on the public forms: the sucursal (when the link fixes none and the
 * empresa has several), DNI or CUIT, and the number. Errors under `sucursal` and `identifier`.
 */
export function IdentityFields(props: {
  link: PortalLink;
  empresa: Empresa;
  sucursalId: number | null;
  onSucursal: (id: number | null) => void;
  type: IdentifierType;
  onType: (type: IdentifierType) => void;
  identifier: string;
  onIdentifier: (identifier: string) => void;
  errors: FieldErrors;
  /** Say how to type the number (no dots for a DNI, dashes optional for a CUIT). */
  withHint?: boolean;
}) {
  const { type } = props;
  return (
    <>
      {needsSucursalChoice(props.link, props.empresa) && (
        <SucursalField
          empresa={props.empresa}
          value={props.sucursalId}
          onChange={props.onSucursal}
          error={props.errors.sucursal}
        />
      )}
      <IdentifierTypeField value={type} onChange={props.onType} />
      <Field
        id="identifier"
        label={type === 'dni' ? 'Número de DNI' : 'Número de CUIT'}
        hint={
          props.withHint
            ? type === 'dni'
              ? 'Solo números, sin puntos.'
              : 'Con o sin guiones.'
            : undefined
        }
        value={props.identifier}
        onInput={props.onIdentifier}
        error={props.errors.identifier}
        autoComplete="username"
        inputMode="numeric"
        maxLength={20}
      />
    </>
  );
}
