import { render } from 'preact';
import { App } from './app.js';
import { loadConfig } from './config.js';
import { configureSession, restoreSession } from './session/session.js';
import './styles.css';

async function start(): Promise<void> {
  const config = await loadConfig();
  configureSession(config.apiBaseUrl);
  const root = document.getElementById('app');
  if (!root) return;
  render(<App />, root);
  await restoreSession();
}

void start();
