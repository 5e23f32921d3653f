import Fastify from 'fastify';
import pg from 'pg';

/**
 * The deudas scenario's baseline, in a process of its own like the portal: a bare Fastify route
 * running the portal's debts SQL for the user named in the path, through a named prepared
 * statement on a pool of BENCH_POOL_SIZE. No auth, no tenancy, no limits, no logs: the machine's
 * ceiling for this read. Prints its URL on stdout.
 */
const { BENCH_TENANT_URL, BENCH_DEBTS_SQL, BENCH_DEBTS_PARAMETERS, BENCH_USER_AT } = process.env;
if (!BENCH_TENANT_URL || !BENCH_DEBTS_SQL || !BENCH_DEBTS_PARAMETERS || !BENCH_USER_AT) {
  throw new Error('bare-debts-server: BENCH_* settings missing');
}
const parameters = JSON.parse(BENCH_DEBTS_PARAMETERS) as unknown[];
const userAt = Number(BENCH_USER_AT);
const pool = new pg.Pool({
  connectionString: BENCH_TENANT_URL,
  max: Number(process.env.BENCH_POOL_SIZE ?? 10),
});
const app = Fastify();
app.get<{ Params: { user: string } }>('/deudas/:user', async (request) => {
  const values = [...parameters];
  values[userAt] = request.params.user;
  const { rows } = await pool.query({ name: 'debts', text: BENCH_DEBTS_SQL, values });
  return { success: true, data: { items: rows } };
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`bare debts ${url}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => pool.end());
});
