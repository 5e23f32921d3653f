import { render } from 'preact';
import { App } from './app.js';
import { loadConfig } from './config.js';
import { parseRoute, positiveInt } from './page-paths.js';
import { configureSession, restoreSession } from './session/session.js';
import { fetchTenant } from './tenant.js';
import './styles.css';

/**
 * Starts what the first page waits for before rendering it, side by side: the session (the
 * refresh through the cookie) and, on a tenant's link, the tenant's data (the API's page has
 * preloaded it; this picks the answer up).
 */
async function start(): Promise<void> {
  const config = await loadConfig();
  configureSession(config.apiBaseUrl);
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

void start();
