/**
 * The due-date reminders' stages in words (GET /portal/empresas/{id} `avisos_etapas`), as the
 * profile names them beside the switch: "3 días antes, 1 y 7 días después". Pure, tested in
 * test/web/unit/reminders.test.ts.
 */

function days(n: number): string {
  return n === 1 ? 'día' : 'días';
}

/** `1`, `1 y 7`, `1, 7 y 15`. */
function list(values: readonly number[]): string {
  if (values.length <= 1) return values.join('');
  return `${values.slice(0, -1).join(', ')} y ${values[values.length - 1] ?? ''}`;
}

/** When the reminders go, relative to each due date; empty when no stage is set. */
export function reminderStages(stages: {
  dias_antes: number;
  dias_vencido: readonly number[];
}): string {
  const parts: string[] = [];
  if (stages.dias_antes > 0) parts.push(`${stages.dias_antes} ${days(stages.dias_antes)} antes`);
  const after = stages.dias_vencido;
  if (after.length > 0) {
    const last = after[after.length - 1] ?? 0;
    parts.push(`${list(after)} ${days(after.length === 1 ? last : 2)} después`);
  }
  return parts.join(', ');
}
