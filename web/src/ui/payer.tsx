/**
 * Who pays: the debts list's "Pagar", the invoices' PDFs and the payment's actions call the API
 * through this, so the same widgets serve the customer's session (the default) and a pay link
 * (pages/pay-link.tsx provides its own: its token, no cancelling, the link kept for the return).
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { DataOf, Route } from '../../../contract/routes.js';
import type { RouteArgs } from '../api/route-call.js';
import type { PayerKey } from '../session/pay-link.js';
import { authBlob, authCall, type Extras } from '../session/session.js';

export interface Payer {
  call<K extends PayerKey>(route: Route<K>, ...input: RouteArgs<K, Extras>): Promise<DataOf<K>>;
  blob<K extends PayerKey>(route: Route<K>, ...input: RouteArgs<K, Extras>): Promise<Blob>;
  /** A full session: cancelling a payment in flight too (a pay link's token may only pay). */
  full: boolean;
  /** Just before the browser leaves for the gateway's checkout. */
  beforeCheckout: () => void;
}

export const SESSION_PAYER: Payer = {
  call: authCall,
  blob: authBlob,
  full: true,
  beforeCheckout: () => undefined,
};

export const PayerContext = createContext<Payer>(SESSION_PAYER);

export function usePayer(): Payer {
  return useContext(PayerContext);
}
