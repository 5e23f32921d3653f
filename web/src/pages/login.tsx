import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/http.js';
import type { Empresa } from '../api/types.js';
import { takeFlash } from '../flash.js';
import { identifierError, normalizeIdentifier, type IdentifierType } from '../lib/validation.js';
import { navigate } from '../router.js';
import { pathFor, safeNext, type PortalLink } from '../routes.js';
import { getSession, login } from '../session/session.js';
import { Field, focusFirstInvalid, IdentifierTypeField } from '../ui/field.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { ErrorBox, Notice } from '../ui/status.js';
import {
  needsSucursalChoice,
  SUCURSAL_MISSING,
  SucursalField,
  useSucursal,
} from '../ui/sucursal.js';

export function LoginPage(props: { link: PortalLink; empresa: Empresa; next: string | null }) {
  const { link, empresa } = props;
  const [notice] = useState(() => {
    const flash = takeFlash();
    if (flash) return flash;
    const session = getSession();
    if (session.status === 'anonymous' && session.reason === 'expired')
      return 'Tu sesión terminó. Ingresá de nuevo.';
    if (session.status === 'anonymous' && session.reason === 'logout') return 'Cerraste la sesión.';
    if (session.status === 'anonymous' && session.reason === 'password')
      return 'Cambiaste tu contraseña. Ingresá con la nueva.';
    return null;
  });
  const [type, setType] = useState<IdentifierType>('dni');
  const [identifier, setIdentifier] = useState('');
  const [password, setPassword] = useState('');
  const [sucursalId, setSucursalId] = useSucursal(link, empresa);
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  async function submit(event: Event) {
    event.preventDefault();
    if (busy) return;
    const found = {
      identifier: identifierError(type, identifier),
      password: password === '' ? 'Ingresá tu contraseña.' : null,
      sucursal: sucursalId === null ? SUCURSAL_MISSING : null,
    };
    setErrors(found);
    setFailure(null);
    if (Object.values(found).some(Boolean) || sucursalId === null) {
      setFailure('Revisá los campos marcados.');
      requestAnimationFrame(() => focusFirstInvalid(form.current));
      return;
    }
    setBusy(true);
    try {
      await login({
        identifier: normalizeIdentifier(type, identifier),
        identifier_type: type,
        password,
        tenant_id: link.tenantId,
        sucursal_id: sucursalId,
      });
      navigate(safeNext(props.next) ?? pathFor(link, 'home'), { replace: true });
    } catch (error) {
      setFailure(
        error instanceof ApiError ? error.message : 'No pudimos ingresar. Probá de nuevo.',
      );
      setPassword('');
      setBusy(false);
    }
  }

  return (
    <Page title="Ingresá a tu cuenta">
      {notice && <Notice>{notice}</Notice>}
      <form ref={form} noValidate onSubmit={(event) => void submit(event)} class="form">
        {failure && <ErrorBox message={failure} />}
        {needsSucursalChoice(link, empresa) && (
          <SucursalField
            empresa={empresa}
            value={sucursalId}
            onChange={setSucursalId}
            error={errors.sucursal}
          />
        )}
        <IdentifierTypeField value={type} onChange={setType} />
        <Field
          id="identifier"
          label={type === 'dni' ? 'Número de DNI' : 'Número de CUIT'}
          hint={type === 'dni' ? 'Solo números, sin puntos.' : 'Con o sin guiones.'}
          value={identifier}
          onInput={setIdentifier}
          error={errors.identifier}
          autoComplete="username"
          inputMode="numeric"
          maxLength={20}
        />
        <Field
          id="password"
          label="Contraseña"
          type="password"
          value={password}
          onInput={setPassword}
          error={errors.password}
          autoComplete="current-password"
          maxLength={256}
        />
        <button type="submit" class="button" aria-disabled={busy}>
          {busy ? 'Ingresando…' : 'Ingresar'}
        </button>
      </form>
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
