import type { FastifyInstance, RouteOptions } from 'fastify';
import { DOCS_PATH } from './openapi.js';

/**
 * Routes that plugins add (no declaration of ours makes them), with why each needs no
 * credential of the portal's and is no operation of the API.
 */
const PLUGIN_ROUTES: readonly { matches: (route: RouteOptions) => boolean; why: string }[] = [
  {
    matches: (route) => route.url === DOCS_PATH || route.url.startsWith(`${DOCS_PATH}/`),
    why: 'the API reference (@fastify/swagger-ui) and its OpenAPI document: no data of anyone',
  },
  {
    matches: (route) => [route.method].flat().includes('OPTIONS'),
    why: 'CORS preflight: browsers never send credentials with it',
  },
];

/** The config of a route outside the API (a gateway's page): public, and why. */
export function outsideApi(why: string): { door: 'public'; why: string; outsideApi: string } {
  return { door: 'public', why, outsideApi: why };
}

/**
 * No route exists without a door: a route declared from the route table has its entry's
 * (declareRoute), a page outside the API says it is public and why (`outsideApi`), and the
 * plugins' few are named above. Any other route stops the build, so a route that forgot its
 * door fails every test instead of waiting for a reviewer. First of the app's onRoute hooks.
 */
export function requireDoors(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.door !== undefined) return;
    const plugin = PLUGIN_ROUTES.find((known) => known.matches(route));
    if (!plugin) {
      throw new Error(
        `${[route.method].flat().join(',')} ${route.url} has no door: declare it from ` +
          'contract/routes.ts (declareRoute), or as a page outside the API (outsideApi)',
      );
    }
    route.config = { ...route.config, ...outsideApi(plugin.why) };
  });
}
