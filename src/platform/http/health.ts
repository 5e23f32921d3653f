import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { AppError } from '../errors.js';
import type { SystemDatabase } from '../db/types.js';
import { declareRoute } from './declare-route.js';

const tags = ['health'];

export function healthRoutes(app: FastifyInstance, systemDb: Kysely<SystemDatabase>): void {
  declareRoute(app, 'checkLiveness', { tags, summary: 'The process is up' }, () =>
    Promise.resolve({ status: 'ok' }),
  );

  declareRoute(
    app,
    'checkReadiness',
    { tags, summary: 'The system database answers' },
    async () => {
      try {
        await sql`SELECT 1`.execute(systemDb);
      } catch (error) {
        throw new AppError('SERVICE_UNAVAILABLE', 'La base de datos del sistema no responde', {
          cause: error,
        });
      }
      return { status: 'ready' };
    },
  );
}
