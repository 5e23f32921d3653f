import path from 'node:path';
import { ConfigError } from '../config.js';
import { openPlatformCore } from '../platform/core.js';
import { loadEnvFile } from '../platform/env-file.js';
import { buildReportsApp } from './app.js';
import { loadReportsConfig } from './config.js';
import { createCouponSource } from './coupon-source.js';
import { renderReceipt } from './receipt-report.js';

const SHUTDOWN_TIMEOUT_MS = 10_000;

/** `npm run reports`: the reports service on its own (production runs it as its own process). */
async function main(): Promise<void> {
  await loadEnvFile();
  // Development secrets only outside production, imported then: production loads no development
  // code. The same file as the API's (src/boot.ts), so a service started on its own (`npm run
  // reports`) takes the secret of the API beside it; one the API starts is handed it instead.
  const env =
    process.env.NODE_ENV === 'production'
      ? { ...process.env }
      : await import('../platform/dev-defaults.js').then(({ withDevDefaults }) =>
          withDevDefaults({ ...process.env }, path.resolve(process.env.PORTAL_DATA_DIR ?? '.data')),
        );
  let config;
  try {
    config = loadReportsConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  // The coupon route reads the ledger: without a database it answers 503 (receipts still work).
  // Its pools connect on the first coupon, not here.
  const core =
    config.databaseUrl === undefined
      ? undefined
      : openPlatformCore({ kind: 'reports', databaseUrl: config.databaseUrl });
  const app = await buildReportsApp({
    secret: config.secret,
    logLevel: config.logLevel,
    coupons: core && createCouponSource(core),
    rendering: config.rendering,
  });
  app.addHook('onClose', async () => {
    await core?.close();
  });
  // pdfkit reads its font metrics from disk on first use: do it now, not on the first request.
  await renderReceipt(WARM_UP);

  let stopping = false;
  const shutdown = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    const timer = setTimeout(() => process.exit(1), SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());

  const url = await app.listen({ host: config.host, port: config.port });
  app.log.info({ url }, 'reports service listening');
}

const WARM_UP = {
  empresa: { nombre: 'Warm-up' },
  sucursal: { id: 1, nombre: 'Warm-up' },
  cliente: { nombre: 'Warm-up', documento: '0', numero: 1 },
  recibo: { numero: 'RC0000-00000000', fecha: '2026-01-01', anulado: false },
  pago: { payment_id: 1, metodo: 'Warm-up', gateway_payment_id: null },
  facturas: [{ tipo: 'Factura B', numero: '0001-00000001', monto: '1.00' }],
  total: '1.00',
};

main().catch((error: unknown) => {
  process.stderr.write(
    `reports service failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
