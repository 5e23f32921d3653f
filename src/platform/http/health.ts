import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { Type } from 'typebox';
import { AppError } from '../errors.js';
import type { SystemDatabase } from '../db/types.js';

const HealthResponse = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ status: Type.String() }),
});

export function healthRoutes(app: FastifyInstance, systemDb: Kysely<SystemDatabase>): void {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        summary: 'The process is up',
        response: { 200: HealthResponse },
      },
    },
    () => Promise.resolve({ success: true as const, data: { status: 'ok' } }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        summary: 'The system database answers',
        response: { 200: HealthResponse },
      },
    },
    async () => {
      try {
        await sql`SELECT 1`.execute(systemDb);
      } catch (error) {
        throw new AppError('SERVICE_UNAVAILABLE', 'La base de datos del sistema no responde', {
          cause: error,
        });
      }
      return { success: true as const, data: { status: 'ready' } };
    },
  );
}
