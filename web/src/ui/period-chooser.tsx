import { useState } from 'preact/hooks';
import {
  periodErrors,
  PRESETS,
  presetOf,
  presetPeriod,
  type Period,
  type Preset,
} from '../lib/statement.js';
import { Field } from './field.js';
import { Form, useForm } from './form.js';

/**
 * The presets (each a toggle button, pressed while it is the period shown) and the free dates.
 * A preset fills the dates too, so "Desde" and "Hasta" always say which period is shown.
 */
export function PeriodChooser(props: {
  period: Period;
  today: string;
  onPeriod: (p: Period) => void;
}) {
  const [desde, setDesde] = useState(props.period.desde);
  const [hasta, setHasta] = useState(props.period.hasta);
  const form = useForm();
  const pressed = presetOf(props.period, props.today);

  function choose(preset: Preset) {
    const next = presetPeriod(preset, props.today);
    setDesde(next.desde);
    setHasta(next.hasta);
    form.invalid({});
    props.onPeriod(next);
  }

  const submit = form.onSubmit(
    () => periodErrors({ desde, hasta }),
    () => {
      props.onPeriod({ desde, hasta });
      return Promise.resolve();
    },
    'No pudimos cambiar el período.',
  );

  return (
    <section aria-labelledby="periodo-title">
      <h2 id="periodo-title">Período</h2>
      <div class="actions presets" role="group" aria-label="Períodos frecuentes">
        {PRESETS.map(([preset, label]) => (
          <button
            key={preset}
            type="button"
            class="button secondary"
            aria-pressed={pressed === preset}
            onClick={() => choose(preset)}
          >
            {label}
          </button>
        ))}
      </div>
      <Form
        state={form}
        onSubmit={submit}
        submit={['Ver este período', 'Cargando…']}
        class="form period-form"
      >
        <Field
          id="desde"
          label="Desde"
          type="date"
          value={desde}
          onInput={setDesde}
          error={form.errors.desde}
          min="1900-01-01"
        />
        <Field
          id="hasta"
          label="Hasta"
          type="date"
          value={hasta}
          onInput={setHasta}
          error={form.errors.hasta}
          min="1900-01-01"
        />
      </Form>
    </section>
  );
}
