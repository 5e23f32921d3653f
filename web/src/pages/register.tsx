import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/http.js';
import type { Empresa, PortalUser } from '../api/types.js';
import { setFlash } from '../flash.js';
import { withFullStop } from '../lib/format.js';
import {
  confirmationError,
  emailError,
  identifierError,
  normalizeIdentifier,
  passwordError,
  phoneError,
  type IdentifierType,
} from '../lib/validation.js';
import { navigate } from '../router.js';
import { pathFor, type PortalLink } from '../routes.js';
import { authCall, login, publicCall } from '../session/session.js';
import { Field, focusFirstInvalid, IdentifierTypeField } from '../ui/field.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { PasswordPolicy } from '../ui/password-policy.js';
import { ErrorBox } from '../ui/status.js';
import {
  needsSucursalChoice,
  SUCURSAL_MISSING,
  SucursalField,
  useSucursal,
} from '../ui/sucursal.js';

/**
 * Registration (SPEC.md register). The API's register takes no phone, so a phone given here is
 * saved right after, through PUT /portal/perfil, once the new account has logged in.
 */
export function RegisterPage(props: { link: PortalLink; empresa: Empresa }) {
  const { link, empresa } = props;
  const [type, setType] = useState<IdentifierType>('dni');
  const [identifier, setIdentifier] = useState('');
  const [email, setEmail] = useState('');
  const [phone, setPhone] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [sucursalId, setSucursalId] = useSucursal(link, empresa);
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  async function submit(event: Event) {
    event.preventDefault();
    if (busy) return;
    const found = {
      sucursal: sucursalId === null ? SUCURSAL_MISSING : null,
      identifier: identifierError(type, identifier),
      email: emailError(email),
      phone: phoneError(phone),
      password: passwordError(password),
      confirmation: confirmationError(password, confirmation),
    };
    setErrors(found);
    setFailure(null);
    if (Object.values(found).some(Boolean) || sucursalId === null) {
      setFailure('Revisá los campos marcados.');
      requestAnimationFrame(() => focusFirstInvalid(form.current));
      return;
    }
    setBusy(true);
    const ids = { tenant_id: link.tenantId, sucursal_id: sucursalId };
    const id = normalizeIdentifier(type, identifier);
    try {
      await publicCall<PortalUser>('/portal/auth/register', {
        method: 'POST',
        body: {
          identifier: id,
          identifier_type: type,
          email: email.trim(),
          password,
          password_confirmation: confirmation,
          ...ids,
        },
      });
    } catch (error) {
      setFailure(error instanceof ApiError ? error.message : 'No pudimos crear la cuenta.');
      setBusy(false);
      return;
    }
    try {
      await login({ identifier: id, identifier_type: type, password, ...ids });
      if (phone.trim() !== '') {
        await authCall('/portal/perfil', { method: 'PUT', body: { telefono: phone.trim() } }).catch(
          () =>
            setFlash('Creamos tu cuenta, pero no pudimos guardar el teléfono. Probá más tarde.'),
        );
      }
      navigate(pathFor(link, 'home'), { replace: true });
    } catch {
      setFlash('Creamos tu cuenta. Ingresá con tu documento y contraseña.');
      navigate(pathFor(link, 'login'), { replace: true });
    }
  }

  return (
    <Page title="Creá tu cuenta">
      <p>
        Para registrarte tenés que ser cliente de {withFullStop(empresa.nombre)} Usá el documento
        con el que te conocen.
      </p>
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
          hint={type === 'dni' ? '7 u 8 números, sin puntos.' : '11 números, con o sin guiones.'}
          value={identifier}
          onInput={setIdentifier}
          error={errors.identifier}
          autoComplete="username"
          inputMode="numeric"
          maxLength={20}
        />
        <Field
          id="email"
          label="E-mail"
          type="email"
          value={email}
          onInput={setEmail}
          error={errors.email}
          autoComplete="email"
          inputMode="email"
          maxLength={254}
        />
        <Field
          id="phone"
          label="Teléfono"
          type="tel"
          value={phone}
          onInput={setPhone}
          error={errors.phone}
          autoComplete="tel"
          inputMode="tel"
          required={false}
          maxLength={20}
        />
        <Field
          id="password"
          label="Contraseña"
          type="password"
          value={password}
          onInput={setPassword}
          error={errors.password}
          describedBy="password-policy"
          autoComplete="new-password"
          maxLength={256}
        />
        <PasswordPolicy id="password-policy" password={password} />
        <Field
          id="confirmation"
          label="Repetí la contraseña"
          type="password"
          value={confirmation}
          onInput={setConfirmation}
          error={errors.confirmation}
          autoComplete="new-password"
          maxLength={256}
        />
        <button type="submit" class="button" aria-disabled={busy}>
          {busy ? 'Creando la cuenta…' : 'Crear cuenta'}
        </button>
      </form>
      <p class="links">
        ¿Ya tenés cuenta? <Link href={pathFor(link, 'login')}>Ingresá</Link>
      </p>
    </Page>
  );
}
