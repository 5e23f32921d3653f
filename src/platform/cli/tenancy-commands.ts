import { migrateEverything, registerTenant } from '../tenancy/registration.js';
import { defineCommand, positiveInteger, required, type Command } from './command.js';

/** The platform's own commands: the databases' migrations and the tenant registry. */
export const tenancyCommands: Record<string, Command<unknown>> = {
  migrate: defineCommand({
    usage: `migrate
      Migrate the system database and every registered tenant database.`,
    options: undefined,
    async run(_values, { say, database }) {
      const result = await migrateEverything(await database());
      say(`system: ${result.system.length === 0 ? 'up to date' : result.system.join(', ')}`);
      for (const [id, applied] of Object.entries(result.tenants)) {
        say(`tenant ${id}: ${applied.length === 0 ? 'up to date' : applied.join(', ')}`);
      }
      return 0;
    },
  }),
  'tenant add': defineCommand({
    usage: `tenant add --id <int> --nombre <text> --database-url <url>
      Register a tenant (or update it) and run the portal migrations in its database.`,
    options: {
      id: { type: 'string' },
      nombre: { type: 'string' },
      'database-url': { type: 'string' },
    },
    async run(values, { say, database }) {
      const tenant = {
        id: positiveInteger('id', values.id),
        nombre: required('nombre', values.nombre),
        databaseUrl: required('database-url', values['database-url']),
      };
      const applied = await registerTenant(await database(), tenant);
      say(
        `tenant ${tenant.id} registered; migrations: ${applied.length === 0 ? 'up to date' : applied.join(', ')}`,
      );
      return 0;
    },
  }),
};
