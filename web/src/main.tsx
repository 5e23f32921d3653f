import { render } from 'preact';
import { App } from './app.js';
import { loadConfig } from './config.js';
import { parseRoute, positiveInt } from './page-paths.js';
import { configureSession, restoreSession } from './session/session.js';
import { fetchTenant } from './tenant.js';
import { fragmentToken, takeFragmentTokens } from './fragment.js';
import { rememberedPayLink } from './portal-memory.js';
import { startPayLink } from './session/pay-link.js';
import './styles.css';

/**
 * Starts what the first page waits for before rendering it, side by side: the session (the
 * refresh through the cookie) and, on a tenant's link, the tenant's data (the API's page has
 * preloaded it; this picks the answer up).
 */
async function start(): Promise<void> {
  // First thing: a pay link's or an invitation's token leaves the address (fragment.ts).
  takeFragmentTokens();
  const config = await loadConfig();
  configureSession(config.apiBaseUrl);
  openPayLink();
  window.addEventListener('hashchange', () => {
    if (takeFragmentTokens()) openPayLink();
  });
  const restoring = restoreSession();
  const route = parseRoute(window.location.pathname, window.location.search);
  const tenant =
    positiveInt(/^\/e\/([^/]+)/.exec(window.location.pathname)?.[1]) ??
    (route.kind === 'result' ? (route.link?.tenantId ?? null) : null);
  if (tenant !== null) fetchTenant(tenant).catch(() => undefined);
  const root = document.getElementById('app');
  if (root) render(<App />, root);
  await restoring;
}

/**
 * On a pay link's page (`/e/{tenant}/pagar`), its token is exchanged at once, its page's code
 * fetched beside it: a phone on a slow link waits for one round trip, not three. Back on that
 * page from the result page (no token in the address), the tab's kept link serves.
 */
function openPayLink(): void {
  const tenantId = positiveInt(/^\/e\/([^/]+)\/pagar\/?$/.exec(window.location.pathname)?.[1]);
  if (tenantId === null) return;
  const token = fragmentToken('enlace') ?? rememberedPayLink(tenantId);
  if (token !== null) startPayLink(token, { tenantId, sucursalId: null });
  import('./pages/pay-link.js').catch(() => undefined);
}

void start();
