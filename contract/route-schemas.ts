/*
 * What the server validates, types and documents for each route of the route table
 * (contract/routes.ts), by the same key: its parameters, query, body and the schema of each
 * success answer (the error answers are the envelope, by the statuses the table lists). Only the
 * server loads this file; the web client reads its types through contract/routes.ts, so no
 * schema reaches the browser.
 */
import type { TSchema } from 'typebox';
import {
  ChangePasswordBody,
  ForgotPasswordBody,
  LoginBody,
  LoginResponse,
  MeResponse,
  MessageResponse,
  RefreshBody,
  RefreshResponse,
  RegisterBody,
  RegisterResponse,
  ResetPasswordBody,
} from './auth.js';
import { AccountSummaryResponse, DebtsResponse } from './account.js';
import {
  BarcodeParams,
  CouponIdParams,
  CouponResponse,
  GenerateBody,
  GenerateResponse,
  ListQuery,
  ListResponse,
} from './coupons.js';
import { PdfResponse } from './envelope.js';
import { HealthResponse } from './health.js';
import {
  TransferAccountResponse,
  TransferNotificationParams,
  TransferNotificationResponse,
} from './transfers.js';
import { InvoiceIdParams, InvoiceListQuery, InvoiceListResponse } from './invoices.js';
import {
  HistoryQuery,
  HistoryResponse,
  PaymentIdBody,
  PaymentResponse,
  ReceiptParams,
  ResultQuery,
  ResultResponse,
  StartBody,
  StartResponse,
  StatusResponse,
  WebhookResponse,
} from './payments.js';
import {
  PlainText,
  PrintConfigCreateBody,
  PrintConfigListResponse,
  PrintConfigParams,
  PrintConfigQuery,
  PrintConfigResponse,
  PrintConfigUpdateBody,
  SignBody,
} from './print.js';
import { ProfileResponse, ProfileUpdateBody } from './profile.js';
import { ReceiptIdParams, ReceiptListQuery, ReceiptListResponse } from './receipts.js';
import {
  UnsubscribeBody,
  UnsubscribeDoneResponse,
  UnsubscribePageResponse,
  UnsubscribeQuery,
} from './reminders.js';
import {
  CsvResponse,
  StaffAccessBody,
  StaffAttentionQuery,
  StaffAttentionResponse,
  StaffAuditQuery,
  StaffAuditResponse,
  StaffClientActionQuery,
  StaffClientListResponse,
  StaffClientParams,
  StaffClientResponse,
  StaffClientsQuery,
  StaffOptionalReasonBody,
  StaffPaymentListResponse,
  StaffPaymentParams,
  StaffPaymentResponse,
  StaffPaymentsCsvQuery,
  StaffPaymentsQuery,
  StaffAssignTransferBody,
  StaffAssignTransferResponse,
  StaffRefundBody,
  StaffTransferParams,
  StaffRefundResponse,
  StaffRetryReceiptResponse,
  StaffSummaryResponse,
  StaffTenantQuery,
} from './staff.js';
import {
  InvitationBody,
  InvitationCsvBody,
  InvitationCsvResponse,
  InvitationReadBody,
  InvitationReadResponse,
  InvitationResponse,
  PayLinkCreatedResponse,
  PayLinkExchangeBody,
  PayLinkExchangeResponse,
  PayLinkListResponse,
  PayLinkParams,
  PayLinkRevokedResponse,
  StaffInvitationListResponse,
  StaffPayLinkResponse,
} from './links.js';
import { StatementQuery, StatementResponse } from './statement.js';
import { TenantParams, TenantResponse } from './tenants.js';

/**
 * A route's schemas. A success answer is a TypeBox schema (JSON) or, for bytes, text and
 * empty answers, an OpenAPI response object as @fastify/swagger takes it.
 */
export interface RouteSchema {
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  response: Readonly<Record<number, TSchema | { description: string }>>;
}

const PDF = { 200: PdfResponse };

export const routeSchemas = {
  checkLiveness: { response: { 200: HealthResponse } },
  checkReadiness: { response: { 200: HealthResponse } },

  getTenant: { params: TenantParams, response: { 200: TenantResponse } },
  getTenantLogo: {
    params: TenantParams,
    response: {
      200: {
        description: 'The logo',
        content: {
          'image/png': { schema: { type: 'string', format: 'binary' } },
          'image/jpeg': { schema: { type: 'string', format: 'binary' } },
          'image/webp': { schema: { type: 'string', format: 'binary' } },
        },
      },
      304: { description: 'The logo the client holds (If-None-Match) is current' },
    },
  },

  register: { body: RegisterBody, response: { 201: RegisterResponse } },
  login: { body: LoginBody, response: { 200: LoginResponse } },
  forgotPassword: { body: ForgotPasswordBody, response: { 200: MessageResponse } },
  resetPassword: { body: ResetPasswordBody, response: { 200: MessageResponse } },
  refreshToken: { body: RefreshBody, response: { 200: RefreshResponse } },
  exchangePayLink: { body: PayLinkExchangeBody, response: { 200: PayLinkExchangeResponse } },
  readInvitation: { body: InvitationReadBody, response: { 200: InvitationReadResponse } },
  changePassword: { body: ChangePasswordBody, response: { 200: MessageResponse } },
  getSessionUser: { response: { 200: MeResponse } },
  logout: { response: { 200: MessageResponse } },

  getProfile: { response: { 200: ProfileResponse } },
  updateProfile: { body: ProfileUpdateBody, response: { 200: ProfileResponse } },

  getAccountSummary: { response: { 200: AccountSummaryResponse } },
  listDebts: { response: { 200: DebtsResponse } },
  getStatement: { querystring: StatementQuery, response: { 200: StatementResponse } },
  getStatementPdf: { querystring: StatementQuery, response: PDF },
  listReceipts: { querystring: ReceiptListQuery, response: { 200: ReceiptListResponse } },
  getReceiptPdf: { params: ReceiptIdParams, response: PDF },
  listInvoices: { querystring: InvoiceListQuery, response: { 200: InvoiceListResponse } },
  getInvoicePdf: { params: InvoiceIdParams, response: PDF },

  startPayment: { body: StartBody, response: { 200: StartResponse } },
  listPayments: { querystring: HistoryQuery, response: { 200: HistoryResponse } },
  getPayment: { params: ReceiptParams, response: { 200: PaymentResponse } },
  getPaymentResult: {
    params: ReceiptParams,
    querystring: ResultQuery,
    response: { 200: ResultResponse },
  },
  getPaymentReceipt: { params: ReceiptParams, response: PDF },
  cancelPayment: { body: PaymentIdBody, response: { 200: StatusResponse } },
  refundPayment: { body: PaymentIdBody, response: { 200: StatusResponse } },
  receivePaymentNotification: { response: { 200: WebhookResponse } },

  generateCoupon: { body: GenerateBody, response: { 200: GenerateResponse } },
  listCoupons: { querystring: ListQuery, response: { 200: ListResponse } },
  getCouponByBarcode: { params: BarcodeParams, response: { 200: CouponResponse } },
  getCouponPdf: { params: CouponIdParams, response: PDF },

  createPayLink: { response: { 201: PayLinkCreatedResponse } },
  listPayLinks: { response: { 200: PayLinkListResponse } },
  revokePayLink: { params: PayLinkParams, response: { 200: PayLinkRevokedResponse } },

  getUnsubscribePage: { querystring: UnsubscribeQuery, response: { 200: UnsubscribePageResponse } },
  unsubscribeFromReminders: {
    querystring: UnsubscribeQuery,
    body: UnsubscribeBody,
    response: { 200: UnsubscribeDoneResponse },
  },

  getPrintCertificate: {
    response: {
      200: PlainText('PEM X.509 certificate (RSA 2048, self-signed unless QZ issued it)'),
      304: { description: 'Not modified (If-None-Match)', type: 'null' },
    },
  },
  signPrintRequest: {
    body: SignBody,
    response: { 200: PlainText('Base64 signature of the UTF-8 bytes of data (SHA512withRSA)') },
  },
  listPrintConfigs: { querystring: PrintConfigQuery, response: { 200: PrintConfigListResponse } },
  createPrintConfig: { body: PrintConfigCreateBody, response: { 201: PrintConfigResponse } },
  getPrintConfig: { params: PrintConfigParams, response: { 200: PrintConfigResponse } },
  updatePrintConfig: {
    params: PrintConfigParams,
    body: PrintConfigUpdateBody,
    response: { 200: PrintConfigResponse },
  },
  deletePrintConfig: { params: PrintConfigParams, response: { 200: PrintConfigResponse } },

  getStaffSummary: { querystring: StaffTenantQuery, response: { 200: StaffSummaryResponse } },
  listStaffPayments: {
    querystring: StaffPaymentsQuery,
    response: { 200: StaffPaymentListResponse },
  },
  exportStaffPayments: { querystring: StaffPaymentsCsvQuery, response: { 200: CsvResponse } },
  getStaffPayment: {
    params: StaffPaymentParams,
    querystring: StaffTenantQuery,
    response: { 200: StaffPaymentResponse },
  },
  listStaffAttention: {
    querystring: StaffAttentionQuery,
    response: { 200: StaffAttentionResponse },
  },
  listStaffClients: { querystring: StaffClientsQuery, response: { 200: StaffClientListResponse } },
  listStaffAudit: { querystring: StaffAuditQuery, response: { 200: StaffAuditResponse } },
  retryStaffReceipt: {
    params: StaffPaymentParams,
    querystring: StaffTenantQuery,
    body: StaffOptionalReasonBody,
    response: { 200: StaffRetryReceiptResponse },
  },
  refundStaffPayment: {
    params: StaffPaymentParams,
    querystring: StaffTenantQuery,
    body: StaffRefundBody,
    response: { 200: StaffRefundResponse },
  },
  unlockStaffClient: {
    params: StaffClientParams,
    querystring: StaffClientActionQuery,
    body: StaffOptionalReasonBody,
    response: { 200: StaffClientResponse },
  },
  endStaffClientSessions: {
    params: StaffClientParams,
    querystring: StaffClientActionQuery,
    body: StaffOptionalReasonBody,
    response: { 200: StaffClientResponse },
  },
  setStaffClientAccess: {
    params: StaffClientParams,
    querystring: StaffClientActionQuery,
    body: StaffAccessBody,
    response: { 200: StaffClientResponse },
  },
  createStaffPayLink: {
    params: StaffClientParams,
    querystring: StaffClientActionQuery,
    body: StaffOptionalReasonBody,
    response: { 200: StaffPayLinkResponse },
  },
  inviteStaffClient: { body: InvitationBody, response: { 200: InvitationResponse } },
  inviteStaffClientsCsv: {
    querystring: StaffTenantQuery,
    body: InvitationCsvBody,
    response: { 200: InvitationCsvResponse },
  },
  listStaffInvitations: {
    querystring: StaffAttentionQuery,
    response: { 200: StaffInvitationListResponse },
  },
  assignStaffTransfer: {
    params: StaffTransferParams,
    querystring: StaffTenantQuery,
    body: StaffAssignTransferBody,
    response: { 200: StaffAssignTransferResponse },
  },

  getTransferAccount: { response: { 200: TransferAccountResponse } },
  receiveTransferNotification: {
    params: TransferNotificationParams,
    response: { 200: TransferNotificationResponse },
  },
} satisfies Record<string, RouteSchema>;

export type RouteSchemas = typeof routeSchemas;
