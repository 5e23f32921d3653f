import { useState } from 'preact/hooks';
import type { Tenant } from '../api/types.js';
import { identifierError, normalizeIdentifier, type IdentifierType } from '../lib/validation.js';
import { rememberedIdentity, rememberedSucursal, rememberIdentity } from '../portal-memory.js';
import type { PortalLink } from '../page-paths.js';
import { Field, IdentifierTypeField } from './field.js';
import type { FieldErrors } from './form.js';
import { needsSucursalChoice, SUCURSAL_MISSING, SucursalField, useSucursal } from './sucursal.js';

/** Who the customer says they are, as the API's login, forgot and reset bodies name it. */
export interface Identity {
  identifier: string;
  identifier_type: IdentifierType;
  tenant_id: number;
  sucursal_id: number;
}

/**
 * The state of `<IdentityFields>` for a public form of `link`: `fields` goes to the component,
 * `check()` finds its errors, `identity()` is the request's part (null while no sucursal is set).
 */
export function useIdentity(link: PortalLink, empresa: Tenant) {
  // The form comes back filled for whoever used it last in this tab (portal-memory.ts).
  const [known] = useState(() => {
    const last = rememberedIdentity(link.tenantId);
    const fits =
      last !== null &&
      (link.sucursalId === null || link.sucursalId === last.sucursalId) &&
      empresa.sucursales.some((s) => s.id === last.sucursalId);
    return fits ? last : null;
  });
  const [type, setType] = useState<IdentifierType>(known?.type ?? 'dni');
  const [identifier, setIdentifier] = useState(known?.identifier ?? '');
  // Else the sucursal of the last login that worked in this browser (issue 38), if still offered.
  const [lastSucursal] = useState(() => {
    const id = rememberedSucursal(link.tenantId);
    return id !== null && empresa.sucursales.some((s) => s.id === id) ? id : null;
  });
  const [sucursalId, setSucursalId] = useSucursal(link, empresa, known?.sucursalId ?? lastSucursal);
  return {
    fields: {
      link,
      empresa,
      sucursalId,
      onSucursal: setSucursalId,
      type,
      onType: setType,
      identifier,
      onIdentifier: setIdentifier,
    },
    check: (): FieldErrors => ({
      sucursal: sucursalId === null ? SUCURSAL_MISSING : null,
      identifier: identifierError(type, identifier),
    }),
    identity: (): Identity | null =>
      sucursalId === null
        ? null
        : {
            identifier: normalizeIdentifier(type, identifier),
            identifier_type: type,
            tenant_id: link.tenantId,
            sucursal_id: sucursalId,
          },
    /** Who is trying, as the login's failure count keys it; null while no sucursal is set. */
    key: (): string | null =>
      sucursalId === null
        ? null
        : `${link.tenantId}:${sucursalId}:${type}:${normalizeIdentifier(type, identifier)}`,
    /** Keeps who this is for the next time the form shows in this tab. */
    remember() {
      if (sucursalId !== null)
        rememberIdentity({
          tenantId: link.tenantId,
          sucursalId,
          type,
          identifier: identifier.trim(),
        });
    },
  };
}

/** How to type the number: no dots for a DNI, dashes optional for a CUIT. */
export const IDENTIFIER_HINTS: Record<IdentifierType, string> = {
  dni: 'Solo números, sin puntos.',
  cuit: 'Con o sin guiones.',
};

/**
 * Who the customer is, on the public forms: the sucursal (when the link fixes none and the
 * empresa has several), DNI or CUIT, and the number. Errors under `sucursal` and `identifier`.
 */
export function IdentityFields(props: {
  link: PortalLink;
  empresa: Tenant;
  sucursalId: number | null;
  onSucursal: (id: number | null) => void;
  type: IdentifierType;
  onType: (type: IdentifierType) => void;
  identifier: string;
  onIdentifier: (identifier: string) => void;
  errors: FieldErrors;
  /** How to type the number, per type (e.g. `IDENTIFIER_HINTS`); none when not given. */
  hints?: Record<IdentifierType, string>;
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
        hint={props.hints?.[type]}
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
