import type { Tenant } from '../../api/types.js';
import { useConsole } from '../ui.js';

/** The sucursal's name, or its number when the tenant's list does not have it. */
export function sucursalName(empresa: Tenant | null, id: number): string {
  return empresa?.sucursales.find((sucursal) => sucursal.id === id)?.nombre ?? `Sucursal ${id}`;
}

/** "Sucursal: Todas / …", only when the business has more than one. */
export function SucursalFilter(props: {
  id: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const { empresa } = useConsole();
  if (!empresa || empresa.sucursales.length < 2) return null;
  return (
    <div class="field">
      <label for={props.id}>Sucursal</label>
      <select
        id={props.id}
        value={props.value}
        onChange={(event) => props.onChange(event.currentTarget.value)}
      >
        <option value="">Todas</option>
        {empresa.sucursales.map((sucursal) => (
          <option key={sucursal.id} value={String(sucursal.id)}>
            {sucursal.nombre}
          </option>
        ))}
      </select>
    </div>
  );
}
