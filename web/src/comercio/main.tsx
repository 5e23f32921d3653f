import { render } from 'preact';
import { loadConfig } from '../config.js';
import { ConsoleApp } from './app.js';
import { fragmentWithoutToken, readClaims, tokenFromFragment } from './lib/token.js';
import { configureStaff, startStaffSession } from './staff-api.js';
import '../styles.css';
import './comercio.css';

/**
 * The business's console (`/comercio/#token=<staff token>`, decision 43). The token is taken
 * from the fragment before anything else runs and the address is replaced without it
 * (`history.replaceState` rewrites the entry the browser keeps, so neither the address bar nor
 * the history holds it); from then on it lives in memory only (staff-api.ts).
 */
function takeToken(): string | null {
  const token = tokenFromFragment(window.location.hash);
  if (window.location.hash.includes('token=')) {
    const { pathname, search, hash } = window.location;
    window.history.replaceState(null, '', `${pathname}${search}${fragmentWithoutToken(hash)}`);
  }
  return token;
}

async function start(): Promise<void> {
  const token = takeToken();
  const claims = token === null ? null : readClaims(token);
  const config = await loadConfig();
  configureStaff(config.apiBaseUrl);
  if (token !== null && claims !== null) startStaffSession(token, claims);
  const root = document.getElementById('app');
  if (root) render(<ConsoleApp claims={claims} />, root);
}

void start();
