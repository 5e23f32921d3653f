import Fastify from 'fastify';
import pg from 'pg';

/**
 * The deudas scenario's bare baseline (the issue's), in a process of its own like the portal: a
 * bare Fastify route running the ledger's debts SQL for the user named in the access token's
 * payload (read, never verified), through a named prepared statement on a pool of
 * BENCH_POOL_SIZE; pg's rows go out as they come. No signature check, tenancy, limits, logs or
 * payments in flight: the machine's ceiling for this read. Prints its URL on stdout.
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

/** The `portal_user_id` of the bearer token's payload, unchecked. */
function userNamedIn(header: string | undefined): unknown {
  const payload = header?.split('.')[1];
  if (!payload) return undefined;
  return (JSON.parse(Buffer.from(payload, 'base64url').toString()) as { portal_user_id?: unknown })
    .portal_user_id;
}

const app = Fastify();
app.get('/portal/deudas', async (request) => {
  const values = [...parameters];
  values[userAt] = userNamedIn(request.headers.authorization);
  const { rows } = await pool.query({ name: 'debts', text: BENCH_DEBTS_SQL, values });
  return { success: true, data: { items: rows } };
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`bare debts ${url}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => pool.end());
});
