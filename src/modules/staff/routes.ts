import { Readable } from 'node:stream';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
} from 'fastify';
import { staffOf } from '../../platform/auth/staff-guard.js';
import { isoInTimeZone } from '../../platform/dates.js';
import { AppError } from '../../platform/errors.js';
import { declareRoute } from '../../platform/http/declare-route.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import { STAFF_DEFAULT_LIMIT, type StaffAction } from '../../../contract/staff.js';
import type { AccountsConsole, Invitations, PayLinks } from '../auth/index.js';
import type { Tenancy } from '../../platform/tenancy/tenancy.js';
import type { PaymentsConsole } from '../payments/index.js';
import type { TransfersConsole } from '../transfers/index.js';
import { findStaffActions, recordStaffAction } from './audit.js';
import { amountCell, BOM, csvRow, parseInvitationCsv, textCell } from './csv.js';
import { MAX_INVITATION_ROWS, type InvitationRowRefusal } from '../../../contract/links.js';

const tags = ['comercio'];

export interface StaffRouteDeps {
  payments: PaymentsConsole;
  transfers: TransfersConsole;
  accounts: AccountsConsole;
  links: { payLinks: PayLinks; invitations: Invitations };
  calendar: TenantCalendar;
  tenancy: Tenancy;
}

function pageOf(query: { limit?: number | undefined; offset?: number | undefined }) {
  return { limit: query.limit ?? STAFF_DEFAULT_LIMIT, offset: query.offset ?? 0 };
}

/** `/pagos/{id}`: digits only (the schema); beyond PostgreSQL's integer it is simply absent. */
function paymentIdOf(request: FastifyRequest<{ Params: { id: string } }>): number {
  const id = Number(request.params.id);
  if (!Number.isSafeInteger(id)) throw new AppError('PAYMENT_NOT_FOUND', 'Pago no encontrado');
  return id;
}

/** Actions whose body is optional may come without one (a bare POST): it is then `{}`. */
function emptyBodyAsObject(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  request.body ??= {};
  done();
}

/**
 * A CSV of invitations may be as long as its schema says (1,000,000 characters: 5,000 rows
 * with room to spare), over the 100 KB every other body is held to.
 */
const INVITATION_CSV_BODY_LIMIT = 1_000_000;

const CSV_HEADER = [
  'pago',
  'fecha',
  'sucursal',
  'cliente',
  'nombre',
  'dni_cuit',
  'metodo',
  'monto',
  'estado',
  'recibo',
  'atencion',
];

/** The console's routes (docs/staff.md): the staff door checks the token, tenant and role. */
export function staffRoutes(app: FastifyInstance, deps: StaffRouteDeps): void {
  const { payments, accounts, transfers } = deps;

  declareRoute(
    app,
    'getStaffSummary',
    { tags, summary: "The business's day: accounts, what was collected, what needs a person" },
    async (request) => {
      const staff = staffOf(request);
      const [clientes, byGateway, byTransfer, paymentsWaiting, transfersWaiting] =
        await Promise.all([
          accounts.counts(staff),
          payments.collected(staff),
          transfers.collected(staff),
          payments.attentionCount(staff),
          transfers.attention(staff),
        ]);
      // What transfers brought counts as collected, a method of its own beside the gateways'.
      const withTransfers = (
        gateways: (typeof byGateway)['hoy'],
        received: (typeof byTransfer)['hoy'],
      ) => ({
        cantidad: received.reduce((total, item) => total + item.cantidad, gateways.cantidad),
        monto:
          received.reduce(
            (total, item) => total + Math.round(item.monto * 100),
            Math.round(gateways.monto * 100),
          ) / 100,
        por_metodo: [...gateways.por_metodo, ...received],
      });
      return {
        clientes,
        cobros: {
          hoy: withTransfers(byGateway.hoy, byTransfer.hoy),
          ultimos_30_dias: withTransfers(byGateway.ultimos_30_dias, byTransfer.ultimos_30_dias),
        },
        atencion: paymentsWaiting + transfersWaiting.length,
      };
    },
  );

  declareRoute(
    app,
    'listStaffPayments',
    { tags, summary: "The tenant's payments, newest first, with filters" },
    async (request) => payments.page(staffOf(request), request.query, pageOf(request.query)),
  );

  declareRoute(
    app,
    'exportStaffPayments',
    { tags, summary: 'The payments of the filters as CSV (es-AR spreadsheets)' },
    async (request, reply) => {
      const staff = staffOf(request);
      const [items, day] = await Promise.all([
        payments.all(staff, request.query),
        deps.calendar.today(staff),
      ]);
      // Written row by row into the answer: a month of payments is never one string.
      function* lines(): Generator<string> {
        yield BOM + csvRow(CSV_HEADER);
        for (const item of items) {
          yield csvRow([
            String(item.payment_id),
            textCell(item.fecha),
            String(item.sucursal_id),
            String(item.cliente.cnro),
            textCell(item.cliente.nombre),
            textCell(item.cliente.dni_cuit),
            textCell(item.metodo_nombre),
            amountCell(item.monto),
            textCell(item.estado),
            textCell(item.recibo_numero ?? ''),
            textCell(item.atencion ?? ''),
          ]);
        }
      }
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="pagos-${day}.csv"`)
        .send(Readable.from(lines()));
    },
  );

  declareRoute(
    app,
    'getStaffPayment',
    { tags, summary: 'One payment: its debts, lifecycle, receipt error and what the gateway said' },
    async (request) => payments.detail(staffOf(request), paymentIdOf(request)),
  );

  declareRoute(
    app,
    'listStaffAttention',
    { tags, summary: 'What needs a person, the longest waiting first' },
    async (request) => {
      const staff = staffOf(request);
      const page = pageOf(request.query);
      // Payments and transfers in one list, the longest waiting first (ISO times in one zone
      // compare as text).
      const [waitingPayments, waitingTransfers] = await Promise.all([
        payments.attention(staff, { limit: Number.MAX_SAFE_INTEGER, offset: 0 }),
        transfers.attention(staff),
      ]);
      const items = [...waitingPayments.items, ...waitingTransfers].sort((a, b) =>
        a.desde < b.desde ? -1 : a.desde > b.desde ? 1 : 0,
      );
      return {
        items: items.slice(page.offset, page.offset + page.limit),
        total: items.length,
        has_more: page.offset + page.limit < items.length,
      };
    },
  );

  declareRoute(
    app,
    'assignStaffTransfer',
    {
      tags,
      summary:
        'Give a transfer that waits for a person to a customer record: it becomes their receipt',
    },
    async (request) => {
      const staff = staffOf(request);
      const id = Number(request.params.id);
      if (!Number.isSafeInteger(id) || id > 2 ** 62) {
        throw new AppError('NOT_FOUND', 'Transferencia no encontrada');
      }
      const answer = await transfers.assign(staff, id, {
        sucursalId: request.body.sucursal_id,
        cnro: request.body.cnro,
        by: staff.nombre ?? staff.sub,
      });
      await recordStaffAction(staff, {
        accion: 'asignar_transferencia',
        objeto: `transferencia ${id} a cliente ${request.body.cnro} (sucursal ${request.body.sucursal_id})`,
        motivo: request.body.motivo,
        ip: request.ip,
      });
      return answer;
    },
  );

  declareRoute(
    app,
    'listStaffClients',
    { tags, summary: 'Portal accounts, newest first, with search' },
    async (request) => accounts.page(staffOf(request), request.query, pageOf(request.query)),
  );

  declareRoute(
    app,
    'listStaffAudit',
    { tags, summary: 'What staff did, newest first' },
    async (request) => {
      const staff = staffOf(request);
      const page = pageOf(request.query);
      const [rows, zone] = await Promise.all([
        findStaffActions(staff.db, staff.tenantId, page),
        deps.calendar.zone(staff),
      ]);
      const total = rows[0] ? Number(rows[0].total) : 0;
      return {
        items: rows.map((row) => ({
          fecha: isoInTimeZone(row.created_at, zone),
          sub: row.sub,
          nombre: row.nombre,
          accion: row.accion,
          objeto: row.objeto,
          motivo: row.motivo,
        })),
        total,
        has_more: page.offset + rows.length < total,
      };
    },
  );

  declareRoute(
    app,
    'retryStaffReceipt',
    {
      tags,
      summary: 'TX2 again for an approved payment without its receipt (never a second one)',
      preValidation: emptyBodyAsObject,
    },
    async (request) => {
      const staff = staffOf(request);
      const answer = await payments.retryReceipt(staff, paymentIdOf(request));
      await recordStaffAction(staff, {
        accion: 'reintentar_recibo',
        objeto: `pago ${answer.payment_id}`,
        motivo: request.body.motivo,
        ip: request.ip,
      });
      return answer;
    },
  );

  declareRoute(
    app,
    'refundStaffPayment',
    { tags, summary: 'Refund a payment through its gateway, the ledger reversed (decision 37)' },
    async (request) => {
      const staff = staffOf(request);
      const answer = await payments.refund(staff, paymentIdOf(request));
      await recordStaffAction(staff, {
        accion: 'devolver',
        objeto: `pago ${answer.payment_id}`,
        motivo: request.body.motivo,
        ip: request.ip,
      });
      return answer;
    },
  );

  const clientObject = (item: { portal_user_id: string; sucursal_id: number }) =>
    `cliente ${item.portal_user_id} (sucursal ${item.sucursal_id})`;
  /** An action on an account done: its audit row, then the account as the list shows it. */
  async function auditedClient<T extends { portal_user_id: string; sucursal_id: number }>(
    request: FastifyRequest,
    action: { accion: StaffAction; motivo: string | undefined; detalle?: string },
    item: T,
  ): Promise<T> {
    const detalle = action.detalle === undefined ? '' : `: ${action.detalle}`;
    await recordStaffAction(staffOf(request), {
      accion: action.accion,
      objeto: `${clientObject(item)}${detalle}`,
      motivo: action.motivo,
      ip: request.ip,
    });
    return item;
  }
  const originOf = (request: FastifyRequest) => ({
    ip: request.ip,
    userAgent: request.headers['user-agent'],
  });

  declareRoute(
    app,
    'unlockStaffClient',
    {
      tags,
      summary: "Clear an account's lock and its failed logins",
      preValidation: emptyBodyAsObject,
    },
    async (request) => {
      const staff = staffOf(request);
      const { portal_user_id: id } = request.params;
      const item = await accounts.unlock(staff, request.query.sucursal_id, id, originOf(request));
      return auditedClient(request, { accion: 'desbloquear', motivo: request.body.motivo }, item);
    },
  );

  declareRoute(
    app,
    'endStaffClientSessions',
    {
      tags,
      summary: "End an account's sessions: its refresh token and every access token",
      preValidation: emptyBodyAsObject,
    },
    async (request) => {
      const staff = staffOf(request);
      const { portal_user_id: id } = request.params;
      const item = await accounts.endSessions(
        staff,
        request.query.sucursal_id,
        id,
        originOf(request),
      );
      return auditedClient(
        request,
        { accion: 'cerrar_sesiones', motivo: request.body.motivo },
        item,
      );
    },
  );

  declareRoute(
    app,
    'setStaffClientAccess',
    { tags, summary: 'Turn an account off (no login, refresh or token) or on again' },
    async (request) => {
      const staff = staffOf(request);
      const { portal_user_id: id } = request.params;
      const item = await accounts.setAccess(
        staff,
        request.query.sucursal_id,
        id,
        request.body.habilitado,
        originOf(request),
      );
      return auditedClient(
        request,
        {
          accion: 'acceso',
          motivo: request.body.motivo,
          detalle: request.body.habilitado ? 'habilitado' : 'deshabilitado',
        },
        item,
      );
    },
  );

  declareRoute(
    app,
    'createStaffPayLink',
    {
      tags,
      summary: "A pay link of the customer's account, to send by the business's own channel",
      preValidation: emptyBodyAsObject,
    },
    async (request) => {
      const staff = staffOf(request);
      const { portal_user_id: id } = request.params;
      const item = await accounts.find(staff, request.query.sucursal_id, id);
      const context = await deps.tenancy.tryResolve(staff.tenantId, request.query.sucursal_id);
      if (!context) throw new AppError('USER_NOT_FOUND', 'Cuenta del portal no encontrada');
      const link = await deps.links.payLinks.create(context, id, 'comercio');
      if (!link)
        throw new AppError(
          'CONFLICT',
          'El comercio no usa enlaces de pago (portal.enlaces.dias = 0)',
        );
      await auditedClient(request, { accion: 'enlace', motivo: request.body.motivo }, item);
      return { url: link.url, vence: link.vence };
    },
  );

  declareRoute(
    app,
    'inviteStaffClient',
    { tags, summary: 'Invite a customer of the ERP without an account to register, by e-mail' },
    async (request) => {
      const staff = staffOf(request);
      const { sucursal_id: sucursalId, cnro, email } = request.body;
      const context = await deps.tenancy.tryResolve(staff.tenantId, sucursalId);
      if (!context) throw new AppError('INVALID_SUCURSAL', 'La sucursal no pertenece a la empresa');
      const answer = await deps.links.invitations.invite(context, cnro, email);
      await recordStaffAction(staff, {
        accion: 'invitar',
        objeto: `cliente ${cnro} (sucursal ${sucursalId})`,
        motivo: undefined,
        ip: request.ip,
      });
      return answer;
    },
  );

  declareRoute(
    app,
    'listStaffInvitations',
    {
      tags,
      summary: 'Invitations and their state, and the share of invited customers who registered',
    },
    async (request) =>
      deps.links.invitations.list(staffOf(request).tenantId, pageOf(request.query)),
  );

  // The CSV arrives as text/csv: a parser of its own in a scope of its own, so no other route
  // takes CSV (they answer 415 as before).
  void app.register((scope, _options, done) => {
    scope.addContentTypeParser('text/csv', { parseAs: 'string' }, (_request, body, parsed) => {
      parsed(null, String(body));
    });
    declareRoute(
      scope,
      'inviteStaffClientsCsv',
      {
        tags,
        summary:
          'Invite many customers from a CSV (`sucursal_id;cnro;email`): per row, sent or why not',
        bodyLimit: INVITATION_CSV_BODY_LIMIT,
      },
      async (request) => {
        const staff = staffOf(request);
        const lines = parseInvitationCsv(request.body);
        if (lines.length > MAX_INVITATION_ROWS) {
          throw new AppError(
            'VALIDATION_ERROR',
            `A lo sumo ${MAX_INVITATION_ROWS} filas por archivo`,
          );
        }
        const seen = new Set<string>();
        const items = [];
        for (const line of lines) {
          if ('invalid' in line) {
            items.push({
              fila: line.fila,
              sucursal_id: null,
              cnro: null,
              email: null,
              enviada: false,
              motivo: 'fila_invalida' as const,
            });
            continue;
          }
          const row = {
            fila: line.fila,
            sucursal_id: line.sucursalId,
            cnro: line.cnro,
            email: line.email,
          };
          const refused = (motivo: InvitationRowRefusal) => ({ ...row, enviada: false, motivo });
          const key = `${line.sucursalId}:${line.cnro}`;
          if (seen.has(key)) {
            items.push(refused('repetido'));
            continue;
          }
          seen.add(key);
          const context = await deps.tenancy.tryResolve(staff.tenantId, line.sucursalId);
          if (!context) {
            items.push(refused('sucursal_invalida'));
            continue;
          }
          if (await deps.links.invitations.invitedToday(context, line.cnro)) {
            items.push(refused('invitado_hoy'));
            continue;
          }
          try {
            await deps.links.invitations.invite(context, line.cnro, line.email);
            items.push({ ...row, enviada: true, motivo: null });
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            if (error.code === 'ORDCON_NOT_FOUND') items.push(refused('cliente_inexistente'));
            else if (error.code === 'USER_ALREADY_EXISTS') items.push(refused('ya_tiene_cuenta'));
            else throw error;
          }
        }
        const enviadas = items.filter((item) => item.enviada).length;
        if (enviadas > 0) {
          await recordStaffAction(staff, {
            accion: 'invitar',
            objeto: `${enviadas} clientes (CSV de ${lines.length} filas)`,
            motivo: undefined,
            ip: request.ip,
          });
        }
        return { items, enviadas, no_enviadas: items.length - enviadas };
      },
    );
    done();
  });
}
