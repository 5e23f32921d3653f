/**
 * The tokens of a pay link's and an invitation's address, taken out of the fragment before
 * anything else runs (main.tsx): the address is rewritten without them (`history.replaceState`
 * replaces the entry, so neither the address bar nor the history keeps them), and they live in
 * this module's memory only. A fragment never reaches a server, a log or a `Referer`.
 */
import { fragmentWithout, tokenInFragment, type FragmentField } from './lib/link-token.js';

const FIELDS: readonly FragmentField[] = ['enlace', 'invitacion'];
const taken = new Map<FragmentField, string>();
const listeners = new Set<() => void>();

/** Takes any token out of the address's fragment; says whether there was one. */
export function takeFragmentTokens(): boolean {
  let hash = window.location.hash;
  let found = false;
  for (const field of FIELDS) {
    const token = tokenInFragment(hash, field);
    if (token === null && !new URLSearchParams(hash.replace(/^#/, '')).has(field)) continue;
    if (token !== null) taken.set(field, token);
    found = true;
    hash = fragmentWithout(hash, field);
  }
  if (found) {
    const { pathname, search } = window.location;
    window.history.replaceState(window.history.state, '', `${pathname}${search}${hash}`);
    for (const listener of listeners) listener();
  }
  return found;
}

/** The token the address carried, if it carried one. */
export function fragmentToken(field: FragmentField): string | null {
  return taken.get(field) ?? null;
}

/** Told when another address (only its fragment changed) brought a token. */
export function onFragmentToken(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Done with a token (an invitation found unusable): the page goes on without it. */
export function forgetFragmentToken(field: FragmentField): void {
  taken.delete(field);
}
