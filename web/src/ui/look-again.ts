/**
 * When the pages read their data again by themselves: the tab becomes visible again (another tab
 * may have paid meanwhile), the connection comes back (a read that failed offline), the browser
 * shows the page from its back-forward cache, or another tab of this portal changed the account
 * (a payment started, ended, cancelled or refunded; a coupon generated) and said so on the
 * `portal-data` channel. A page left open never shows a payment in flight that ended, or a
 * balance since paid, for longer than it takes to look at it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * Why the pages look again: the tab `shown` again, the page `restored` from the back-forward
 * cache, the connection back `online`, or the account `changed` (by another tab, or found stale).
 */
export type LookReason = 'shown' | 'restored' | 'online' | 'changed';

type Listener = (reason: LookReason) => void;

const listeners = new Set<Listener>();
const channel: BroadcastChannel | null =
  typeof BroadcastChannel === 'function' ? new BroadcastChannel('portal-data') : null;

function lookAgain(reason: LookReason): void {
  for (const listener of [...listeners]) listener(reason);
}

if (typeof window === 'object') {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') lookAgain('shown');
  });
  window.addEventListener('pageshow', (event) => {
    if (event.persisted) lookAgain('restored');
  });
  window.addEventListener('online', () => lookAgain('online'));
  channel?.addEventListener('message', () => lookAgain('changed'));
}

/**
 * Why this tab's page last looked again, said by the page itself (ui/page.tsx) rather than by
 * the part that found it stale: that part is often what the new read removes (a payment's
 * "Continuar el pago"), and its words would go with it before anyone read them. Kept for the
 * address it was said at: another page does not repeat it.
 */
let notice: { text: string; address: string } | null = null;
const noticeListeners = new Set<() => void>();

function currentAddress(): string {
  return `${window.location.pathname}${window.location.search}`;
}

/**
 * This tab's pages look again now (what one of them shows turned out to be stale); `why`, when
 * given, is said on the page until the customer goes to another one.
 */
export function lookAgainHere(why?: string): void {
  if (why !== undefined) {
    notice = { text: why, address: currentAddress() };
    for (const listener of [...noticeListeners]) listener();
  }
  lookAgain('changed');
}

/** What the page says of its last look again (`lookAgainHere`'s `why`) at `address`, or null. */
export function useLookAgainNotice(address: string): string | null {
  const [, rerender] = useState(0);
  useEffect(() => {
    const listener = () => rerender((count) => count + 1);
    noticeListeners.add(listener);
    return () => noticeListeners.delete(listener);
  }, []);
  return notice?.address === address ? notice.text : null;
}

/** This tab changed the account: the portal's other tabs look again (this one does its own). */
export function accountChanged(): void {
  channel?.postMessage('changed');
}

/** Subscribes `listener` to the looks again; answers the unsubscribe. */
export function onLookAgain(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** `listener` on every look again while the component is shown (the latest render's). */
export function useLookAgain(listener: Listener, active = true): void {
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => {
    if (!active) return undefined;
    return onLookAgain((reason) => latest.current(reason));
  }, [active]);
}
