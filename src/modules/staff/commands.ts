import path from 'node:path';
import {
  defineCommand,
  positiveInteger,
  UsageError,
  type Command,
} from '../../platform/cli/command.js';
import { STAFF_ROLES, type StaffRole } from '../../platform/security/staff-tokens.js';

/** Where the development key is (PORTAL_DATA_DIR), and whether this is production. */
export interface StaffCommandSettings {
  dataDir: string;
  isProduction: boolean;
}

const isRole = (value: string): value is StaffRole =>
  (STAFF_ROLES as readonly string[]).includes(value);

/**
 * `npm run cli -- staff token`: a console token from the development key `npm start` made
 * (docs/staff.md). Production never mints: the administrative system signs its staff's tokens,
 * so the command refuses there, and wherever the development key is absent.
 */
export const staffCommands: Record<string, Command<StaffCommandSettings>> = {
  'staff token': defineCommand({
    usage: `staff token --tenant <id> --rol lectura|operador [--sub <id>] [--nombre <name>]
      Print a 12-hour console token signed with the development key (never in production).`,
    options: {
      tenant: { type: 'string' },
      rol: { type: 'string' },
      sub: { type: 'string' },
      nombre: { type: 'string' },
    },
    async run(values, { say, warn, settings }) {
      const tenantId = positiveInteger('tenant', values.tenant);
      const rol = values.rol ?? '';
      if (!isRole(rol)) throw new UsageError('--rol must be lectura or operador');
      if (values.sub !== undefined && (values.sub === '' || values.sub.length > 100)) {
        throw new UsageError('--sub must be 1-100 characters');
      }
      const { dataDir, isProduction } = await settings();
      if (isProduction) {
        warn(
          'production never mints staff tokens: the administrative system signs them (docs/staff.md)',
        );
        return 1;
      }
      const { mintDevStaffToken } = await import('../../dev/staff-keys.js');
      const token = await mintDevStaffToken(path.resolve(dataDir), {
        tenantId,
        rol,
        sub: values.sub,
        nombre: values.nombre,
      });
      if (token === undefined) {
        warn(
          `no development staff key under ${path.join(dataDir, 'staff')}: \`npm start\` makes it on its first run`,
        );
        return 1;
      }
      say(token);
      return 0;
    },
  }),
};
