import Fastify from 'fastify';
import pg from 'pg';

/**
 * The estado-cuenta-json scenario's baseline, in a process of its own like the portal: a bare
 * Fastify route running the portal's two reads of a statement for the user and period in the
 * request, in the portal's order: the pending debts (a named prepared statement, as the
 * portal's), which give the customer number, then the statement's SQL (unnamed, as the portal
 * sends it); and answering the same JSON the way a lean implementation would: the running
 * balance, totals and aging in cents, numbers out, JSON.stringify. No auth, no tenancy, no
 * limits, no logs, no schemas. Prints its URL on stdout.
 */
const env = process.env;
const required = (name: string): string => {
  const value = env[name];
  if (!value) throw new Error(`bare-statement-server: ${name} missing`);
  return value;
};
const statementSql = required('BENCH_STATEMENT_SQL');
const statementParameters = JSON.parse(required('BENCH_STATEMENT_PARAMETERS')) as unknown[];
const debtsSql = required('BENCH_DEBTS_SQL');
const debtsParameters = JSON.parse(required('BENCH_DEBTS_PARAMETERS')) as unknown[];
/** The values the parameters were compiled with, replaced per request. */
const {
  user: USER,
  cnro: CNRO,
  desde: DESDE,
  hasta: HASTA,
} = JSON.parse(required('BENCH_PLACEHOLDERS')) as {
  user: string;
  cnro: number;
  desde: string;
  hasta: string;
};

const pool = new pg.Pool({
  connectionString: required('BENCH_TENANT_URL'),
  max: Number(env.BENCH_POOL_SIZE ?? 10),
});
// As the portal reads them: dates as text (numeric is text by default).
pg.types.setTypeParser(1082, (value: string) => value);

interface StatementRow {
  saldo_inicial: string;
  id: string | null;
  fecha: string | null;
  tipo: string | null;
  comprobante: string | null;
  nrocomp: string | null;
  vencimiento: string | null;
  debe: string | null;
  haber: string | null;
}
interface DebtRow {
  cnro: number;
  id: string | null;
  vencimiento: string | null;
  debe: string | null;
}

const cents = (numeric: string) => Math.round(Number(numeric) * 100);
const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

const app = Fastify();
app.get<{ Params: { user: string }; Querystring: { desde: string; hasta: string; hoy: string } }>(
  '/estado-cuenta/:user',
  async (request) => {
    const { user } = request.params;
    const { desde, hasta, hoy } = request.query;
    const debts = await pool.query<DebtRow>({
      name: 'debts',
      text: debtsSql,
      values: debtsParameters.map((value) => (value === USER ? user : value)),
    });
    const cnro = debts.rows[0]?.cnro;
    if (cnro === undefined) return { success: false, error: 'Usuario no encontrado' };
    const statement = await pool.query<StatementRow>(
      statementSql,
      statementParameters.map((value) =>
        value === CNRO ? cnro : value === DESDE ? desde : value === HASTA ? hasta : value,
      ),
    );
    const first = statement.rows[0];
    if (!first) return { success: false, error: 'Cliente no encontrado' };
    const opening = cents(first.saldo_inicial);
    let balance = opening;
    let debits = 0;
    let credits = 0;
    const movimientos = [];
    for (const row of statement.rows) {
      if (row.id === null) continue;
      const debe = cents(row.debe ?? '0');
      const haber = cents(row.haber ?? '0');
      balance += debe - haber;
      debits += debe;
      credits += haber;
      movimientos.push({
        id: row.id,
        fecha: row.fecha,
        tipo: row.tipo,
        comprobante: row.comprobante,
        nrocomp: row.nrocomp,
        vencimiento: row.vencimiento,
        debe: debe / 100,
        haber: haber / 100,
        saldo: balance / 100,
      });
    }
    const aging = [0, 0, 0, 0, 0];
    const today = day(hoy);
    for (const debt of debts.rows) {
      if (debt.id === null || debt.debe === null) continue;
      const late = debt.vencimiento === null ? 0 : today - day(debt.vencimiento);
      const bucket = late <= 0 ? 0 : late <= 30 ? 1 : late <= 60 ? 2 : late <= 90 ? 3 : 4;
      aging[bucket] = (aging[bucket] ?? 0) + cents(debt.debe);
    }
    const [a_vencer = 0, d30 = 0, d60 = 0, d90 = 0, more = 0] = aging;
    return {
      success: true,
      data: {
        desde,
        hasta,
        saldo_inicial: opening / 100,
        movimientos,
        total_debe: debits / 100,
        total_haber: credits / 100,
        saldo_final: balance / 100,
        antiguedad: {
          a_vencer: a_vencer / 100,
          vencido_1_30: d30 / 100,
          vencido_31_60: d60 / 100,
          vencido_61_90: d90 / 100,
          vencido_mas_90: more / 100,
        },
      },
    };
  },
);
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`bare statement ${url}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => pool.end());
});
