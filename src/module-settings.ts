import type { Config } from './config.js';
import type { RemindersSettings } from './modules/reminders/index.js';

/*
 * Each module's face declares the settings it reads of the deployment; this file fills them from
 * the configuration (config.ts), so no module sees the whole of it.
 */

export function remindersSettings(config: Config): RemindersSettings {
  return {
    allowedOrigins: config.allowedOrigins,
    backendUrl: config.backendUrl,
    smtpUrl: config.smtpUrl,
    jobConcurrency: config.jobConcurrency,
  };
}
