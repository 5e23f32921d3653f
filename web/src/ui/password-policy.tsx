import { passwordRules } from '../lib/validation.js';

/**
 * The password policy, visible before it is broken; each rule says whether the typed password
 * meets it (in text, not only colour). The field points here with aria-describedby.
 */
export function PasswordPolicy(props: { id: string; password: string }) {
  return (
    <div class="policy" id={props.id}>
      <p class="hint">La contraseña debe tener:</p>
      <ul>
        {passwordRules(props.password).map((rule) => (
          <li key={rule.id} class={rule.met ? 'met' : 'unmet'}>
            <span aria-hidden="true">{rule.met ? '✓' : '•'}</span> {rule.label}
            {props.password !== '' && (
              <span class="visually-hidden">{rule.met ? ' (cumplido)' : ' (falta)'}</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
