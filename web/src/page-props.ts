import type { Me, Tenant } from './api/types.js';
import type { PortalLink } from './page-paths.js';

/*
 * What the router (app.tsx) gives each page: in a module of their own, so that the pages, which
 * the router imports, do not import the router back.
 */

/** What a public page (login, register, forgot) is given. */
export interface PublicPageProps {
  link: PortalLink;
  empresa: Tenant;
  /** `next` of the query, not yet checked (safeNext). */
  next: string | null;
  /**
   * Fetches the code of the page a session leads to from here (`next`, or home), beside the
   * requests that sign in: that page then shows at once.
   */
  prepare: () => void;
}

/** What a page behind the session is given. */
export interface PrivatePageProps {
  link: PortalLink;
  me: Me;
}
