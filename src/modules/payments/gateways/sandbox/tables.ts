import type { Generated, JSONColumnType } from 'kysely';
import type { CreatedAt, Numeric, Timestamp } from '../../../../platform/db/types.js';

/** back_urls: where the payer returns after paying, failing, or leaving it pending. */
export interface SandboxBackUrls {
  success: string;
  failure: string;
  pending: string;
}

/**
 * The sandbox's own table in the tenant database (db/migrations/tenant/0004): typed here, beside
 * its only reader, and added to the tenant database's types by its queries (`withTables`), so
 * the portal's types name no table of a gateway. A type, not an interface: `withTables` wants
 * its index signature.
 */
export type SandboxTables = {
  portal_sandbox_payments: {
    id: string;
    reference: string;
    amount: Numeric;
    description: string;
    status: Generated<'pending' | 'approved' | 'rejected' | 'cancelled' | 'refunded'>;
    notification_url: string;
    back_urls: JSONColumnType<SandboxBackUrls, string, string>;
    expires_at: Timestamp;
    created_at: CreatedAt;
    updated_at: Timestamp | null;
  };
};
