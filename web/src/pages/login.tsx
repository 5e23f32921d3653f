import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { PublicPageProps } from '../page-props.js';
import { minutesText } from '../api/errors.js';
import { ApiError } from '../api/http.js';
import { failedWith } from '../api/route-call.js';
import { whenIdleAfterLoad } from '../lib/after-load.js';
import { lockWarning } from '../lib/lockout.js';
import { takeFlash } from '../flash.js';
import {
  clearFailedLogins,
  countFailedLogin,
  failedLogins,
  rememberSucursal,
} from '../portal-memory.js';
import { pathFor, safeNext } from '../page-paths.js';
import { getSession, login } from '../session/session.js';
import { Field } from '../ui/field.js';
import { Form, useForm } from '../ui/form.js';
import { IDENTIFIER_HINTS, IdentityFields, useIdentity } from '../ui/identity-fields.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { routes } from '../../../contract/routes.js';
import { ErrorBox, Notice } from '../ui/status.js';

/** Why the customer is back at the login, said once (a flash, or how the session ended). */
function arrivalNotice(): string | null {
  const flash = takeFlash();
  if (flash) return flash;
  const session = getSession();
  if (session.status !== 'anonymous') return null;
  // The API's own words when it said why (another login, a logout elsewhere, a new password).
  if (session.reason === 'expired')
    return session.message ?? 'Tu sesión terminó. Ingresá de nuevo.';
  if (session.reason === 'logout') return 'Cerraste la sesión.';
  if (session.reason === 'password') return 'Cambiaste tu contraseña. Ingresá con la nueva.';
  return null;
}

type Refusal = { kind: 'wrong'; message: string } | { kind: 'locked'; minutes: string };

export function LoginPage(props: PublicPageProps) {
  const { link, empresa } = props;
  // Why the customer arrived: said until they try again, never above a later error.
  const [notice, setNotice] = useState(arrivalNotice);
  const who = useIdentity(link, empresa);
  const [password, setPassword] = useState('');
  const form = useForm();
  const { route } = useLocation();
  const key = who.key();
  // Read on each render: it follows the identity typed (another person's count is not theirs).
  const failed = key === null ? 0 : failedLogins(key);
  const [, setCounted] = useState(0);
  // The API's refusal of a password (said with the warning before the lock, in one box that a
  // phone's first screen shows with the form) or of a locked account (for how long); each with
  // the way out as a link.
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const forgot = pathFor(link, 'forgot');
  const warning = lockWarning(failed);
  const wayOut = <Link href={forgot}>recuperá tu contraseña</Link>;
  // The next page's code (home, most often) once this page has loaded: after the form is usable,
  // never beside what it needs (a slow link shares its bytes), and here before most finish typing.
  useEffect(() => whenIdleAfterLoad(props.prepare), []);

  const submit = form.onSubmit(
    () => ({ ...who.check(), password: password === '' ? 'Ingresá tu contraseña.' : null }),
    async () => {
      const identity = who.identity();
      if (!identity) return;
      who.remember();
      // The next page's code comes beside the login, so that page shows as soon as it is in.
      props.prepare();
      try {
        await login({ ...identity, password });
      } catch (error) {
        setPassword('');
        if (key !== null) {
          // The lock itself is told by the API; a wrong password is counted here only.
          if (failedWith(error, routes.login, 'INVALID_CREDENTIALS'))
            setCounted(countFailedLogin(key));
          if (failedWith(error, routes.login, 'ACCOUNT_LOCKED')) clearFailedLogins(key);
        }
        if (failedWith(error, routes.login, 'ACCOUNT_LOCKED')) {
          const wait = error instanceof ApiError ? error.retryAfterSeconds : null;
          setRefusal({ kind: 'locked', minutes: minutesText(wait ?? 15 * 60) });
          return;
        }
        if (error instanceof ApiError && failedWith(error, routes.login, 'INVALID_CREDENTIALS')) {
          setRefusal({ kind: 'wrong', message: error.message });
          return;
        }
        throw error;
      }
      if (key !== null) clearFailedLogins(key);
      rememberSucursal(link.tenantId, identity.sucursal_id);
      route(safeNext(props.next) ?? pathFor(link, 'home'), true);
    },
    'No pudimos ingresar. Probá de nuevo.',
    () => {
      setNotice(null);
      setRefusal(null);
    },
  );

  return (
    <Page title="Ingresá a tu cuenta">
      {notice && <Notice>{notice}</Notice>}
      {refusal?.kind === 'locked' && (
        <ErrorBox
          message={
            <>
              Tu cuenta quedó bloqueada por varios intentos fallidos. Probá de nuevo en{' '}
              {refusal.minutes} o {wayOut}.
            </>
          }
        />
      )}
      {refusal?.kind === 'wrong' && (
        <ErrorBox
          message={
            <>
              {refusal.message}
              {warning && (
                <>
                  {' '}
                  {warning} Si no la recordás, {wayOut}.
                </>
              )}
            </>
          }
        />
      )}
      {refusal === null && warning && (
        <div class="alert alert-warning" role="status">
          <p>
            {warning} Si no la recordás, {wayOut}.
          </p>
        </div>
      )}
      <Form state={form} onSubmit={submit} submit={['Ingresar', 'Ingresando…']}>
        <IdentityFields {...who.fields} errors={form.errors} hints={IDENTIFIER_HINTS} />
        <Field
          id="password"
          label="Contraseña"
          type="password"
          value={password}
          onInput={setPassword}
          error={form.errors.password}
          autoComplete="current-password"
          maxLength={256}
        />
        {/* Beside the password, not under the form: in a phone's first screen. */}
        <p class="field-link">
          <Link href={forgot}>Olvidé mi contraseña</Link>
        </p>
      </Form>
      <ul class="links">
        <li>
          ¿Primera vez? <Link href={pathFor(link, 'register')}>Creá tu cuenta</Link>
        </li>
      </ul>
    </Page>
  );
}
