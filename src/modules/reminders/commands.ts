import {
  defineCommand,
  optionalPositiveInteger,
  type Command,
} from '../../platform/cli/command.js';
import type { CommandPlatformOptions } from '../../platform/cli/platform.js';
import type { DebtsHeldByPayments } from '../payments/index.js';
import { activateReminders, sendRemindersNow } from './command.js';
import type { RemindersSettings } from './module-settings.js';
import type { PayLinkMaker } from './command.js';

/** What the commands read of the deployment. */
export type RemindersCommandSettings = Pick<
  RemindersSettings,
  'allowedOrigins' | 'backendUrl' | 'smtpUrl'
>;

/** The operator's terminal: the settings a tenant got wrong, never an address. */
function terminal(warn: (message: string) => void): CommandPlatformOptions {
  return { log: { warn: (fields, message) => warn(`${message}: ${JSON.stringify(fields)}`) } };
}

/**
 * `avisos activar` and `avisos enviar` (docs/cli.md), for src/cli.ts's table; given what the
 * API gives the module, the debts payments in flight hold.
 */
export function remindersCommands(deps: {
  heldDebts: DebtsHeldByPayments;
  /** Each e-mail's pay link, as the API makes them (auth's face). */
  payLinkMaker?: PayLinkMaker;
}): Record<string, Command<RemindersCommandSettings>> {
  return {
    'avisos activar': defineCommand({
      usage: `avisos activar [--tenant <id>]
      The nightly discovery now: read the tenant's ini (every active tenant's without
      --tenant), mark those with portal.avisos.habilitado on for their next run; unmark the rest.`,
      options: { tenant: { type: 'string' } },
      async run(values, { say, warn, open }) {
        const filter = { tenantId: optionalPositiveInteger('tenant', values.tenant) };
        const results = await activateReminders(await open(terminal(warn)), filter);
        if (results.length === 0) say('no active tenant');
        for (const result of results) {
          if (result.outcome === 'on') {
            const hour = `${String(result.hour).padStart(2, '0')}:00 ${result.timeZone}`;
            say(
              `tenant ${result.tenantId}: reminders on; next run ${result.nextRun.toISOString()} (${hour})`,
            );
          } else if (result.outcome === 'failed') {
            say(`tenant ${result.tenantId}: failed: ${result.error}`);
          } else {
            say(
              `tenant ${result.tenantId}: ${result.outcome === 'off' ? 'reminders off (portal.avisos.habilitado)' : 'unknown or inactive tenant'}`,
            );
          }
        }
        // Named by hand and not turned on: the operator expected otherwise.
        return results.some(
          (result) =>
            result.outcome !== 'on' &&
            (filter.tenantId !== undefined || result.outcome === 'failed'),
        )
          ? 1
          : 0;
      },
    }),
    'avisos enviar': defineCommand({
      usage: `avisos enviar [--tenant <id>]
      Run the due-date reminders now, for today in each tenant's zone, in every active tenant
      whose ini has them on (or the one named), and print what was sent.`,
      options: { tenant: { type: 'string' } },
      async run(values, { say, warn, open, settings }) {
        const filter = { tenantId: optionalPositiveInteger('tenant', values.tenant) };
        const results = await sendRemindersNow(
          await open(terminal(warn)),
          await settings(),
          filter,
          deps,
        );
        if (results.length === 0) {
          say('no active tenant has reminders on (portal.avisos.habilitado)');
        }
        for (const result of results) {
          if (result.outcome === 'ran') {
            const stages = Object.entries(result.stages)
              .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
              .map(([stage, count]) => `${stage} ${count}`);
            say(
              `tenant ${result.tenantId} (${result.date}): ${result.emails} e-mail(s)` +
                (stages.length > 0 ? `; ${stages.join(', ')}` : '') +
                (result.failed > 0 ? `; ${result.failed} failed (retried by the next run)` : ''),
            );
          } else if (result.outcome === 'failed') {
            say(`tenant ${result.tenantId}: failed: ${result.error}`);
          } else {
            say(
              `tenant ${result.tenantId}: ${result.outcome === 'off' ? 'reminders off' : 'unknown or inactive tenant'}`,
            );
          }
        }
        return results.some(
          (result) =>
            result.outcome === 'failed' || (result.outcome === 'ran' && result.failed > 0),
        )
          ? 1
          : 0;
      },
    }),
  };
}
