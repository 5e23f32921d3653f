import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/http.js';
import type { Empresa, MessageData } from '../api/types.js';
import { setFlash } from '../flash.js';
import {
  codeError,
  confirmationError,
  identifierError,
  normalizeIdentifier,
  passwordError,
  type IdentifierType,
} from '../lib/validation.js';
import { navigate } from '../router.js';
import { pathFor, type PortalLink } from '../routes.js';
import { publicCall } from '../session/session.js';
import { Field, focusFirstInvalid, IdentifierTypeField } from '../ui/field.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { PasswordPolicy } from '../ui/password-policy.js';
import { ErrorBox, Notice } from '../ui/status.js';
import {
  needsSucursalChoice,
  SUCURSAL_MISSING,
  SucursalField,
  useSucursal,
} from '../ui/sucursal.js';

/** Forgot password: the identifier, then the e-mailed 6-digit code and a new password. */
export function ForgotPage(props: { link: PortalLink; empresa: Empresa }) {
  const { link, empresa } = props;
  const [step, setStep] = useState<'identify' | 'reset'>('identify');
  const [type, setType] = useState<IdentifierType>('dni');
  const [identifier, setIdentifier] = useState('');
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [sucursalId, setSucursalId] = useSucursal(link, empresa);
  const [errors, setErrors] = useState<Record<string, string | null>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const codeHeading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    if (step === 'reset') codeHeading.current?.focus();
  }, [step]);

  function invalid(found: Record<string, string | null>): boolean {
    setErrors(found);
    setFailure(null);
    if (!Object.values(found).some(Boolean)) return false;
    setFailure('Revisá los campos marcados.');
    requestAnimationFrame(() => focusFirstInvalid(form.current));
    return true;
  }

  async function send<T>(path: string, body: Record<string, unknown>): Promise<T | null> {
    if (sucursalId === null) return null;
    setBusy(true);
    try {
      return await publicCall<T>(path, {
        method: 'POST',
        body: {
          identifier: normalizeIdentifier(type, identifier),
          identifier_type: type,
          tenant_id: link.tenantId,
          sucursal_id: sucursalId,
          ...body,
        },
      });
    } catch (error) {
      setFailure(error instanceof ApiError ? error.message : 'No pudimos completar el pedido.');
      return null;
    } finally {
      setBusy(false);
    }
  }

  async function requestCode(event: Event) {
    event.preventDefault();
    if (busy) return;
    const found = {
      sucursal: sucursalId === null ? SUCURSAL_MISSING : null,
      identifier: identifierError(type, identifier),
    };
    if (invalid(found)) return;
    const answer = await send<MessageData>('/portal/auth/forgot-password', {});
    if (answer) setStep('reset');
  }

  async function reset(event: Event) {
    event.preventDefault();
    if (busy) return;
    const found = {
      code: codeError(code),
      password: passwordError(password),
      confirmation: confirmationError(password, confirmation),
    };
    if (invalid(found)) return;
    const answer = await send<MessageData>('/portal/auth/reset-password', {
      code: code.trim(),
      password,
      password_confirmation: confirmation,
    });
    if (answer) {
      setFlash('Cambiaste tu contraseña. Ingresá con la nueva.');
      navigate(pathFor(link, 'login'), { replace: true });
    }
  }

  return (
    <Page title="Recuperá tu contraseña">
      {step === 'identify' ? (
        <form ref={form} noValidate onSubmit={(event) => void requestCode(event)} class="form">
          <p>Te vamos a enviar un código de 6 números al e-mail de tu cuenta.</p>
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
            value={identifier}
            onInput={setIdentifier}
            error={errors.identifier}
            autoComplete="username"
            inputMode="numeric"
            maxLength={20}
          />
          <button type="submit" class="button" aria-disabled={busy}>
            {busy ? 'Enviando…' : 'Enviar código'}
          </button>
        </form>
      ) : (
        <form ref={form} noValidate onSubmit={(event) => void reset(event)} class="form">
          <h2 tabIndex={-1} ref={codeHeading}>
            Ingresá el código
          </h2>
          <Notice>
            Si los datos corresponden a una cuenta, te enviamos un código por e-mail. Vence en 15
            minutos.
          </Notice>
          {failure && <ErrorBox message={failure} />}
          <Field
            id="code"
            label="Código"
            hint="Los 6 números del e-mail."
            value={code}
            onInput={setCode}
            error={errors.code}
            autoComplete="one-time-code"
            inputMode="numeric"
            maxLength={6}
          />
          <Field
            id="password"
            label="Nueva contraseña"
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
            label="Repetí la nueva contraseña"
            type="password"
            value={confirmation}
            onInput={setConfirmation}
            error={errors.confirmation}
            autoComplete="new-password"
            maxLength={256}
          />
          <button type="submit" class="button" aria-disabled={busy}>
            {busy ? 'Guardando…' : 'Cambiar contraseña'}
          </button>
          <button
            type="button"
            class="button secondary"
            onClick={() => {
              setStep('identify');
              setFailure(null);
            }}
          >
            No me llegó el código
          </button>
        </form>
      )}
      <p class="links">
        <Link href={pathFor(link, 'login')}>Volver a ingresar</Link>
      </p>
    </Page>
  );
}
