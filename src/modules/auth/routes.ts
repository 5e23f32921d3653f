import type { FastifyInstance, FastifyRequest } from 'fastify';
import { declareRoute } from '../../platform/http/declare-route.js';
import type { RequestOrigin } from '../../platform/audit.js';
import { principalOf } from '../../platform/auth/guard.js';
import { AppError } from '../../platform/errors.js';
import { isAllowedOrigin } from '../../platform/http/security.js';
import { LIMITS } from '../../platform/rate-limit.js';
import { requestedTenant } from '../../platform/tenancy/requested-tenant.js';
import { FORGOT_PASSWORD_MESSAGE, type PasswordReset } from './password-reset.js';
import { clearRefreshCookie, REFRESH_COOKIE, setRefreshCookie } from './refresh-cookie.js';
import type { AuthService } from './service.js';
import type { PayLinks } from './links/index.js';
import type { Invitations } from './links/invitations.js';

export interface AuthRouteDeps {
  auth: AuthService;
  reset: PasswordReset;
  invitations: Invitations;
  payLinks: PayLinks;
  /** The public prefix of the refresh cookie's path, and the origins that may send the cookie. */
  deployment: { publicPrefix: '' | '/backend'; allowedOrigins: readonly string[] };
}

function originOf(request: FastifyRequest): RequestOrigin {
  return { ip: request.ip, userAgent: request.headers['user-agent'] };
}

/** docs/decisions.md #2: older body shapes are refused naming the fields the route expects. */
function expecting(...fields: string[]) {
  return { expectedFields: fields };
}

const PUBLIC_FIELDS = ['identifier', 'identifier_type', 'tenant_id', 'sucursal_id'];
const tags = ['auth'];

/**
 * Register, login, password reset and token refresh: the routes that take no access token, whose
 * answers carry credentials and are never stored.
 */
export function publicAuthRoutes(app: FastifyInstance, deps: AuthRouteDeps): void {
  const { auth, reset, deployment } = deps;
  const prefix = deployment.publicPrefix;

  declareRoute(
    app,
    'register',
    {
      tags,
      summary: 'Self-registration against the customer record (ordcon)',
      privateAnswers: true,
      config: {
        rateLimit: LIMITS.register,
        ...expecting(...PUBLIC_FIELDS, 'email', 'password', 'password_confirmation'),
      },
    },
    async (request, reply) => {
      const { body } = request;
      const credentials = {
        email: body.email,
        password: body.password,
        passwordConfirmation: body.password_confirmation,
      };
      let data;
      if (body.invitacion !== undefined) {
        // The invitation names the customer: the DNI/CUIT and the ids are not asked for.
        if (body.identifier !== undefined || body.tenant_id !== undefined) {
          throw new AppError(
            'VALIDATION_ERROR',
            'Con invitacion no se envían identifier ni tenant_id',
          );
        }
        data = await auth.registerInvited(
          deps.invitations,
          { invitacion: body.invitacion, ...credentials },
          originOf(request),
        );
      } else {
        if (body.identifier === undefined || body.identifier_type === undefined) {
          throw new AppError(
            'VALIDATION_ERROR',
            "body must have required property 'identifier' and 'identifier_type' (or 'invitacion')",
          );
        }
        data = await auth.register(
          requestedTenant(request, body),
          { identifier: body.identifier, identifierType: body.identifier_type, ...credentials },
          originOf(request),
        );
      }
      void reply.code(201);
      return data;
    },
  );

  declareRoute(
    app,
    'login',
    {
      tags,
      summary: 'Login; also sets the refresh cookie',
      privateAnswers: true,
      config: { rateLimit: LIMITS.login, ...expecting(...PUBLIC_FIELDS, 'password') },
    },
    async (request, reply) => {
      const { body } = request;
      const { session, ...data } = await auth.login(
        requestedTenant(request, body),
        {
          identifier: body.identifier,
          identifierType: body.identifier_type,
          password: body.password,
        },
        originOf(request),
      );
      setRefreshCookie(reply, prefix, session.refreshToken, session.maxAgeSeconds);
      return data;
    },
  );

  declareRoute(
    app,
    'forgotPassword',
    {
      tags,
      summary: 'Request a reset code by e-mail (same answer whether or not the user exists)',
      privateAnswers: true,
      config: { rateLimit: LIMITS.forgotPasswordPerIp, ...expecting(...PUBLIC_FIELDS) },
    },
    async (request) => {
      const { body } = request;
      await reset.requestCode(
        requestedTenant(request, body),
        { identifier: body.identifier, identifierType: body.identifier_type },
        originOf(request),
      );
      return { message: FORGOT_PASSWORD_MESSAGE };
    },
  );

  declareRoute(
    app,
    'resetPassword',
    {
      tags,
      summary: 'Set a new password with the e-mailed code',
      privateAnswers: true,
      config: {
        rateLimit: LIMITS.resetPasswordPerIp,
        ...expecting(...PUBLIC_FIELDS, 'code', 'password', 'password_confirmation'),
      },
    },
    async (request) => {
      const { body } = request;
      await reset.reset(
        requestedTenant(request, body),
        {
          identifier: body.identifier,
          identifierType: body.identifier_type,
          code: body.code,
          password: body.password,
          passwordConfirmation: body.password_confirmation,
        },
        originOf(request),
      );
      return { message: 'Contraseña actualizada' };
    },
  );

  declareRoute(
    app,
    'refreshToken',
    {
      tags,
      summary: 'Rotate tokens (body token, or the refresh cookie when the body is empty)',
      privateAnswers: true,
      config: expecting('refresh_token'),
      // A browser may post no body at all: that is the empty object of the cookie flow.
      preValidation: (request, _reply, done) => {
        request.body ??= {};
        done();
      },
    },
    async (request, reply) => {
      let token = request.body.refresh_token;
      if (token === undefined) {
        // docs/decisions.md #10: a SameSite=None cookie rides on cross-site form posts too.
        if (!isAllowedOrigin(deployment, request.headers.origin)) {
          throw new AppError('FORBIDDEN', 'Origen no permitido para usar la cookie de sesión');
        }
        token = request.cookies[REFRESH_COOKIE];
      }
      if (!token) throw new AppError('INVALID_REFRESH_TOKEN', 'Refresh token ausente');
      const { session, ...data } = await auth.refresh(token, originOf(request));
      setRefreshCookie(reply, prefix, session.refreshToken, session.maxAgeSeconds);
      return data;
    },
  );
}

/** The signed-in customer's routes (their door checks the token). */
export function authRoutes(
  app: FastifyInstance,
  deps: Pick<AuthRouteDeps, 'auth' | 'deployment'>,
): void {
  const { auth, deployment } = deps;
  const prefix = deployment.publicPrefix;

  declareRoute(
    app,
    'changePassword',
    {
      tags,
      summary: 'Change the password; the session ends (log in again with the new one)',
      config: expecting('current_password', 'new_password'),
    },
    async (request, reply) => {
      const { tenant, portalUserId } = principalOf(request);
      await auth.changePassword(
        tenant,
        portalUserId,
        { currentPassword: request.body.current_password, newPassword: request.body.new_password },
        originOf(request),
      );
      clearRefreshCookie(reply, prefix);
      return { message: 'Contraseña actualizada; inicie sesión con la nueva contraseña' };
    },
  );

  declareRoute(
    app,
    'getSessionUser',
    {
      tags,
      summary: 'The authenticated user',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return await auth.me(tenant, portalUserId);
    },
  );

  declareRoute(
    app,
    'logout',
    {
      tags,
      summary: 'Revoke the session and clear the refresh cookie',
      config: { acceptsEndedSession: true },
    },
    async (request, reply) => {
      // docs/decisions.md #10, as on refresh: a request carrying the cookie must come from an allowed
      // Origin, and one without Origin is refused as the cookie-based refresh refuses it.
      if (
        request.cookies[REFRESH_COOKIE] !== undefined &&
        !isAllowedOrigin(deployment, request.headers.origin)
      ) {
        throw new AppError('FORBIDDEN', 'Origen no permitido para usar la cookie de sesión');
      }
      const { tenant, portalUserId, sessionEnded } = principalOf(request);
      // docs/decisions.md #15: logging out of a session that already ended succeeds and changes
      // nothing (its token must not end the session that replaced it).
      if (!sessionEnded) await auth.logout(tenant, portalUserId, originOf(request));
      clearRefreshCookie(reply, prefix);
      return { message: 'Sesión cerrada' };
    },
  );
}

/** A pay link's exchange and an invitation's reading: public, their token is the credential. */
export function linkRoutes(
  app: FastifyInstance,
  deps: Pick<AuthRouteDeps, 'payLinks' | 'invitations'>,
): void {
  declareRoute(
    app,
    'exchangePayLink',
    {
      tags,
      summary: "A pay link's token for a 15-minute access token that may only pay (no cookie)",
      privateAnswers: true,
      config: { rateLimit: LIMITS.payLinkPerIp },
    },
    async (request) => deps.payLinks.exchange(request.body.token, originOf(request)),
  );

  declareRoute(
    app,
    'readInvitation',
    {
      tags,
      summary: 'Whom an invitation invites (marks it opened), before registering from it',
      privateAnswers: true,
      config: { rateLimit: LIMITS.payLinkPerIp },
    },
    async (request) => deps.invitations.read(request.body.invitacion),
  );

  declareRoute(
    app,
    'createPayLink',
    { tags, summary: 'A pay link to share: whoever holds it may see what is owed and pay it' },
    async (request, reply) => {
      const { tenant, portalUserId } = principalOf(request);
      const link = await deps.payLinks.create(tenant, portalUserId, 'cliente');
      if (!link) throw new AppError('CONFLICT', 'El comercio no usa enlaces de pago');
      void reply.code(201);
      return link;
    },
  );

  declareRoute(
    app,
    'listPayLinks',
    { tags, summary: "The account's live pay links" },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return { items: await deps.payLinks.list(tenant, portalUserId) };
    },
  );

  declareRoute(
    app,
    'revokePayLink',
    { tags, summary: 'Revoke one of the account’s pay links: its tokens stop at once' },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return deps.payLinks.revoke(tenant, portalUserId, Number(request.params.id));
    },
  );
}
