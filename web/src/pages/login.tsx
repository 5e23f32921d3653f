import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { PublicPageProps } from '../page-props.js';
import { failedWith } from '../api/route-call.js';
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
import { Notice } from '../ui/status.js';

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

/** From this many wrong passwords in a row (counted in this tab), the login warns of the lock. */
const WARN_AFTER = 3;

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

  const submit = form.onSubmit(
    () => ({ ...who.check(), password: password === '' ? 'Ingresá tu contraseña.' : null }),
    async () => {
      const identity = who.identity();
      if (!identity) return;
      who.remember();
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
        throw error;
      }
      if (key !== null) clearFailedLogins(key);
      rememberSucursal(link.tenantId, identity.sucursal_id);
      route(safeNext(props.next) ?? pathFor(link, 'home'), true);
    },
    'No pudimos ingresar. Probá de nuevo.',
    () => setNotice(null),
  );

  return (
    <Page title="Ingresá a tu cuenta">
      {notice && <Notice>{notice}</Notice>}
      {failed >= WARN_AFTER && (
        <div class="alert alert-warning" role="status">
          <p>
            Con 5 intentos fallidos seguidos, la cuenta se bloquea por 15 minutos. Si no la
            recordás, <Link href={pathFor(link, 'forgot')}>Recuperá tu contraseña</Link>.
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
      </Form>
      <ul class="links">
        <li>
          <Link href={pathFor(link, 'forgot')}>Olvidé mi contraseña</Link>
        </li>
        <li>
          ¿Primera vez? <Link href={pathFor(link, 'register')}>Creá tu cuenta</Link>
        </li>
      </ul>
    </Page>
  );
}
