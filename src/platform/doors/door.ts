import type {
  onRequestAsyncHookHandler,
  onRequestHookHandler,
  preHandlerAsyncHookHandler,
  preHandlerHookHandler,
} from 'fastify';
import type { Kysely } from 'kysely';
import type { SystemDatabase } from '../db/types.js';
import type { StaffTokens } from '../security/staff-tokens.js';
import type { AccessTokens } from '../security/tokens.js';
import type { PayLinkStatus } from '../auth/pay-links.js';
import type { SessionVersions } from '../auth/session-versions.js';
import type { Tenancy } from '../tenancy/tenancy.js';

/** An OpenAPI security scheme (components.securitySchemes), as the document writes it. */
export interface SecurityScheme {
  readonly type: 'http';
  readonly scheme: 'bearer';
  readonly bearerFormat: string;
  readonly description?: string;
}

export type OnRequestHook = onRequestHookHandler | onRequestAsyncHookHandler;
export type PreHandlerHook = preHandlerHookHandler | preHandlerAsyncHookHandler;

/** What a door checks on each of its routes: on the request, and after validation. */
export interface DoorChecks {
  readonly onRequest: readonly OnRequestHook[];
  readonly preHandler: readonly PreHandlerHook[];
}

/** What the platform hands a door when it opens (one set for every door). */
export interface DoorDeps {
  tokens: AccessTokens;
  tenancy: Tenancy;
  versions: SessionVersions;
  /** Whether a pay link still lets its tokens in (the payer door). */
  payLinks: PayLinkStatus;
  /** The per-user limit of the routes a customer's token opens (platform/rate-limit.ts). */
  perUserLimit: PreHandlerHook;
  /** The administrative system's tokens (docs/staff.md), and the limit per staff user. */
  staffTokens: StaffTokens;
  perStaffLimit: PreHandlerHook;
  systemDb: Kysely<SystemDatabase>;
}

/**
 * A door of the route table (contract/routes.ts `DOORS`): how the routes that name it are
 * entered. Its route table facts (the codes it implies) are the contract's; its checks are here.
 */
export interface DoorDefinition {
  /** The OpenAPI security scheme its routes require, named; none for a door without a credential. */
  readonly scheme?: { readonly name: string; readonly definition: SecurityScheme };
  /**
   * Its answers carry `Cache-Control: no-store` whatever the route (docs/api.md "Caching"): they
   * hold a person's data or credentials.
   */
  readonly privateAnswers: boolean;
  open(deps: DoorDeps): DoorChecks;
}
