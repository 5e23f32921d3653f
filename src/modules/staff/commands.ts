import {
  defineCommand,
  positiveInteger,
  UsageError,
  type Command,
} from '../../platform/cli/command.js';
import { STAFF_ROLES, type StaffRole } from '../../platform/security/staff-tokens.js';

/** A development token's claims (src/dev/staff-keys.ts signs them). */
export interface DevStaffClaims {
  tenantId: number;
  rol: StaffRole;
  sub: string | undefined;
  nombre: string | undefined;
}

/**
 * Whether this is production, and the development signer (the CLI hands it in from src/dev/, which
 * no module imports): undefined when there is no development key.
 */
export interface StaffCommandSettings {
  isProduction: boolean;
  where: string;
  mint: (claims: DevStaffClaims) => Promise<string | undefined>;
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
      const { isProduction, where, mint } = await settings();
      if (isProduction) {
        warn(
          'production never mints staff tokens: the administrative system signs them (docs/staff.md)',
        );
        return 1;
      }
      const token = await mint({ tenantId, rol, sub: values.sub, nombre: values.nombre });
      if (token === undefined) {
        warn(`no development staff key under ${where}: \`npm start\` makes it on its first run`);
        return 1;
      }
      say(token);
      return 0;
    },
  }),
};
