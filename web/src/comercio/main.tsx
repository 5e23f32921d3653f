import { render } from 'preact';
import { loadConfig } from '../config.js';
import { ConsoleApp } from './app.js';
import { fragmentWithoutToken, readClaims, tokenFromFragment } from './lib/token.js';
import { configureStaff, endStaffSession, startStaffSession } from './staff-api.js';
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

let sessions = 0;

/** A session of the token (or none): a console of its own, nothing kept from the last one. */
function mount(token: string | null): void {
  const claims = token === null ? null : readClaims(token);
  if (token !== null && claims !== null) startStaffSession(token, claims);
  else endStaffSession();
  sessions += 1;
  const root = document.getElementById('app');
  if (root) render(<ConsoleApp key={sessions} claims={claims} />, root);
}

async function start(): Promise<void> {
  const token = takeToken();
  const config = await loadConfig();
  configureStaff(config.apiBaseUrl);
  mount(token);
  // The system opening the console again in this tab changes the fragment only (no new
  // document): the new token is taken out of the address the same way and starts afresh.
  window.addEventListener('hashchange', () => {
    const next = takeToken();
    if (next !== null) mount(next);
  });
}

void start();
