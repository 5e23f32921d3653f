import type { BuildOptions } from './app-options.js';
import type { Config } from './config.js';
import type { AuthSettings } from './modules/auth/index.js';
import type { InvoicesSettings } from './modules/invoices/index.js';
import type { PaymentsSettings } from './modules/payments/index.js';
import type { PrintSettings } from './modules/print/index.js';
import type { ProfileSettings } from './modules/profile/index.js';
import type { RemindersSettings } from './modules/reminders/index.js';
import type { StatementSettings } from './modules/statement/index.js';
import type { TenantsSettings } from './modules/tenants/index.js';
import type { TransfersSettings } from './modules/transfers/index.js';

/*
 * Each module's face declares the settings it reads of the deployment; this file fills them from
 * the configuration (config.ts), so no module sees the whole of it, nor the secrets the platform
 * derives its keys from.
 */

export interface ModuleSettings {
  tenants: TenantsSettings;
  auth: AuthSettings;
  profile: ProfileSettings;
  payments: PaymentsSettings;
  statement: StatementSettings;
  invoices: InvoicesSettings;
  print: PrintSettings;
  reminders: RemindersSettings;
  transfers: TransfersSettings;
}

export function remindersSettings(config: Config): RemindersSettings {
  return {
    allowedOrigins: config.allowedOrigins,
    backendUrl: config.backendUrl,
    smtpUrl: config.smtpUrl,
    jobConcurrency: config.jobConcurrency,
  };
}

/** `options` are buildApp's (a benchmark's switches). */
export function moduleSettings(config: Config, options: BuildOptions = {}): ModuleSettings {
  const { jobConcurrency, reportsTimeoutMs, publicPrefix, allowedOrigins, backendUrl } = config;
  return {
    tenants: { publicPrefix },
    auth: {
      publicPrefix,
      allowedOrigins,
      refreshTtlDays: config.refreshTtlDays,
      refreshGraceSeconds: config.refreshGraceSeconds,
      jobConcurrency,
    },
    profile: { jobConcurrency },
    payments: {
      gateways: {
        isProduction: config.isProduction,
        timeoutMs: config.gatewayTimeoutMs,
        allowedOrigins: config.gatewayAllowedOrigins,
        publicUrl: backendUrl ?? '',
        switches: config.switches,
      },
      allowedOrigins,
      backendUrl,
      checkoutTtlMinutes: config.checkoutTtlMinutes,
      jobConcurrency,
    },
    statement: { reportsTimeoutMs },
    invoices: { reportsTimeoutMs, pdfFairUse: options.invoicePdfFairUse ?? true },
    print: {
      qzPrivateKeyPath: config.qzPrivateKeyPath,
      qzCertificatePath: config.qzCertificatePath,
    },
    reminders: remindersSettings(config),
    transfers: {
      environment: {
        timeoutMs: config.gatewayTimeoutMs,
        allowedOrigins: config.gatewayAllowedOrigins,
      },
      backendUrl,
      publicPrefix,
      jobConcurrency,
    },
  };
}
