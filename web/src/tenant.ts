/**
 * Whose portal this is: GET /portal/empresas/{tenant_id} (public) gives the tenant's name and
 * sucursales. Cached per tenant for the life of the page.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ApiError } from './api/http.js';
import type { Tenant } from './api/types.js';
import { routes } from '../../contract/routes.js';
import { publicCall } from './session/session.js';

export type TenantState =
  | { status: 'loading' }
  | { status: 'ready'; empresa: Tenant }
  | { status: 'error'; error: ApiError };

const cache = new Map<number, Promise<Tenant>>();

export function fetchTenant(tenantId: number): Promise<Tenant> {
  let pending = cache.get(tenantId);
  if (!pending) {
    pending = publicCall(routes.getTenant, { params: { tenant_id: tenantId } });
    pending.catch(() => cache.delete(tenantId));
    cache.set(tenantId, pending);
  }
  return pending;
}

export function useTenant(tenantId: number): [TenantState, () => void] {
  const [state, setState] = useState<TenantState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    setState({ status: 'loading' });
    fetchTenant(tenantId).then(
      (empresa) => live && setState({ status: 'ready', empresa }),
      (error: ApiError) => live && setState({ status: 'error', error }),
    );
    return () => {
      live = false;
    };
  }, [tenantId, attempt]);
  return [state, () => setAttempt((n) => n + 1)];
}
