/*
 * What a bank-transfer (collection) provider declares (docs/transfers.md "A provider is a
 * folder"): the same shape as a payment gateway's definition, for the other kind of rail. A
 * provider gives each customer record an account of its own (a CVU with an alias), reports the
 * credits those accounts receive, and notifies the portal of them. The portal never believes a
 * notification: it only says which credit to read back (docs/decisions.md #47).
 */

/** What the deployment tells every provider (the gateways' environment, the same values). */
export interface TransferEnvironment {
  /** Per outbound call. */
  timeoutMs: number;
  /** PORTAL_GATEWAY_ALLOWED_ORIGINS: origins a tenant's URL may point at besides official hosts. */
  allowedOrigins: readonly string[];
}

/** A credit as the provider reports it when asked: the only version the portal records. */
export interface ProviderCredit {
  /** The provider's id of the credit: one credit, one receipt. */
  creditId: string;
  traceId: string | null;
  /** The account (CVU) it arrived at. */
  account: string | null;
  /** The provider's customer of that account (what the portal named it), when it says. */
  customerId: string | null;
  /** Exactly as reported, 2 decimals (`1250.50`). */
  amount: string;
  currency: string;
  receivedAt: Date | null;
  status: 'received' | 'settlement' | 'rejected';
  payer: { name: string | null; cuit: string | null; bank: string | null };
}

/** What a notification names, before anything is read back: a hint, never a fact. */
export interface NotificationHint {
  kind: 'credit' | 'settlement';
  creditId: string;
  /** The day to look in, when the body says one. */
  date: Date | null;
}

/** A tenant's client of its provider, built from its `portal.transferencias.<id>.*` keys. */
export interface TransferProviderClient {
  /** Assigns (or answers again) the account of `customerId`: the provider is idempotent on it. */
  assignAccount(customerId: string): Promise<{ cvu: string; alias: string | null }>;
  /** Every credit received from `from` to `to`, all pages. */
  credits(range: { from: Date; to: Date }): Promise<ProviderCredit[]>;
  /** One credit by its id, looked for around `near` (the provider has no read by id). */
  credit(creditId: string, near: Date): Promise<ProviderCredit | undefined>;
  /** Where the provider posts its notifications, and the header it sends with them. */
  registerWebhook(url: string, header: { name: string; value: string }): Promise<void>;
}

/** Why a tenant's settings cannot build the client: the key at fault, never its value. */
export interface TransferSettingsProblem {
  setting: string;
  reason: string;
}

export type TransferClientResult =
  | { ok: true; client: TransferProviderClient; webhookToken: string }
  | { ok: false; problem: TransferSettingsProblem };

export interface TransferProviderDefinition<Id extends string = string> {
  /** As written in `portal.transferencias.proveedor`, its keys and the webhook's path. */
  readonly id: Id;
  /** As the customer reads it ("Cucuru"). */
  readonly label: string;
  /** Its `portal.transferencias.<id>.*` keys (docs/erp.md lists each; a test holds them together). */
  readonly settings: readonly string[];
  /** The header its notifications carry the tenant's webhook token in. */
  readonly webhookHeader: string;
  /** The notification kinds of its webhook's path, and what each is. */
  readonly notifications: Readonly<Record<string, NotificationHint['kind']>>;
  build(
    values: ReadonlyMap<string, string>,
    environment: TransferEnvironment,
  ): TransferClientResult;
  /** The hint a notification's body gives, or undefined when it names no credit. */
  readHint(kind: NotificationHint['kind'], body: unknown): NotificationHint | undefined;
}
