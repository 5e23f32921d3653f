import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

/**
 * The portal in a process of its own, configured by the environment as `npm start` is, for
 * scenarios whose load comes from one user: the per-user limit of protected routes is still
 * counted on every request, only raised so that it never answers 429 (as bench/portal.ts does
 * in-process). Prints its URL on stdout; SIGTERM closes it.
 */
const app = await buildApp(loadConfig(process.env), { perUserMax: 1_000_000_000 });
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`Portal API ${url}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
