import { useState } from 'preact/hooks';
import type { Tenant } from '../api/types.js';
import type { PortalLink } from '../page-paths.js';

/** The sucursal a public form sends: the link's, the one used last, the only one, or the one chosen. */
export function useSucursal(
  link: PortalLink,
  empresa: Tenant,
  /** The one chosen last time, when the link leaves the choice open. */
  known: number | null = null,
): [number | null, (id: number | null) => void] {
  return useState<number | null>(() => {
    if (link.sucursalId !== null) return link.sucursalId;
    if (known !== null) return known;
    return empresa.sucursales.length === 1 ? (empresa.sucursales[0]?.id ?? null) : null;
  });
}

/** Whether the form must offer a choice of sucursal. */
export function needsSucursalChoice(link: PortalLink, empresa: Tenant): boolean {
  return link.sucursalId === null && empresa.sucursales.length > 1;
}

export function SucursalField(props: {
  empresa: Tenant;
  value: number | null;
  onChange: (id: number | null) => void;
  error?: string | null;
}) {
  const errorId = props.error ? 'sucursal-error' : undefined;
  return (
    <div class={`field${props.error ? ' field-invalid' : ''}`}>
      <label for="sucursal">Sucursal</label>
      <select
        id="sucursal"
        value={props.value === null ? '' : String(props.value)}
        onChange={(event) => {
          const value = event.currentTarget.value;
          props.onChange(value === '' ? null : Number(value));
        }}
        required
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={errorId}
      >
        <option value="">Elegí tu sucursal</option>
        {props.empresa.sucursales.map((s) => (
          <option key={s.id} value={String(s.id)}>
            {s.nombre}
          </option>
        ))}
      </select>
      {props.error && (
        <p class="field-error" id={errorId}>
          {props.error}
        </p>
      )}
    </div>
  );
}

export const SUCURSAL_MISSING = 'Elegí la sucursal donde sos cliente.';
