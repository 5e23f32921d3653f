import { useEffect, useState } from 'preact/hooks';
import { getPayLink, subscribePayLink, type PayLinkState } from './pay-link.js';

/** The pay link's state (session/pay-link.ts), re-rendering on each change. */
export function usePayLink(): PayLinkState {
  const [state, setState] = useState(getPayLink);
  useEffect(() => {
    setState(getPayLink());
    return subscribePayLink(setState);
  }, []);
  return state;
}
