import type { FastifyInstance } from 'fastify';
import { declareRoute } from '../../platform/http/declare-route.js';
import { printConfigRoutes } from './config-routes.js';
import type { PrintConfigService } from './config-service.js';
import type { PrintSigner } from './signer.js';

const tags = ['impresion'];
const TEXT = 'text/plain; charset=utf-8';

/** If-None-Match lists ETags (weak ones compare equal for GET, RFC 9110 13.1.2) or says `*`. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(',')
    .map((candidate) => candidate.trim().replace(/^W\//, ''))
    .some((candidate) => candidate === '*' || candidate === etag);
}

/**
 * The QZ Tray print agent (docs/decisions.md #39, 40), under /qz and /backend/qz. The certificate it
 * trusts holds no secret and is cached by the agent, so it is public.
 */
export function printCertificateRoutes(app: FastifyInstance, deps: { signer: PrintSigner }): void {
  declareRoute(
    app,
    'getPrintCertificate',
    {
      tags,
      summary: 'The PEM certificate for qz.security.setCertificatePromise (public, cacheable)',
    },
    async (request, reply) => {
      const { pem, etag } = deps.signer.certificate();
      void reply.header('cache-control', 'public, max-age=3600').header('etag', etag);
      if (matches(request.headers['if-none-match'], etag)) return reply.status(304).send(null);
      return reply.type(TEXT).send(pem);
    },
  );
}

/** The signature of each QZ Tray request and the user's print configurations (signed in). */
export function printRoutes(
  app: FastifyInstance,
  deps: { signer: PrintSigner; printConfigs: PrintConfigService },
): void {
  declareRoute(
    app,
    'signPrintRequest',
    {
      tags,
      summary: 'Sign a QZ Tray request: base64 SHA512withRSA, for setSignaturePromise',
      config: { expectedFields: ['data'] },
    },
    async (request, reply) => {
      const signature = await deps.signer.sign(request.body.data);
      return reply.type(TEXT).header('cache-control', 'no-store').send(signature);
    },
  );

  printConfigRoutes(app, deps);
}
