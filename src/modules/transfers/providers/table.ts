import { cucuruProvider } from './cucuru/definition.js';
import type { TransferProviderDefinition } from './definition.js';

/**
 * The transfer providers (docs/transfers.md), one line each, as the gateways' table: adding one
 * (BIND, Basilic) is its folder and a line here.
 */
const DEFINITIONS = [cucuruProvider] as const;

export type TransferProviderId = (typeof DEFINITIONS)[number]['id'];

export const TRANSFER_PROVIDERS: ReadonlyMap<string, TransferProviderDefinition> = new Map(
  DEFINITIONS.map((definition) => [definition.id, definition]),
);

export function transferProvider(id: string | undefined): TransferProviderDefinition | undefined {
  return id === undefined ? undefined : TRANSFER_PROVIDERS.get(id);
}
