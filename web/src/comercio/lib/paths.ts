/**
 * The console's addresses, under `/comercio/` (never with the token: it stays in memory), and
 * what each one shows. Pure, tested in test/web/unit/staff-console.test.ts.
 */

export const CONSOLE_ROOT = '/comercio/';

export type ConsoleView =
  | { kind: 'resumen' }
  | { kind: 'pagos' }
  | { kind: 'pago'; id: number }
  | { kind: 'atencion' }
  | { kind: 'clientes' }
  | { kind: 'invitaciones' }
  | { kind: 'auditoria' }
  | { kind: 'none' };

/** The nav's sections, in order, with their path segment and name. */
export const SECTIONS = [
  { kind: 'resumen', segment: '', label: 'Resumen' },
  { kind: 'pagos', segment: 'pagos', label: 'Pagos' },
  { kind: 'atencion', segment: 'atencion', label: 'Atención' },
  { kind: 'clientes', segment: 'clientes', label: 'Clientes' },
  { kind: 'invitaciones', segment: 'invitaciones', label: 'Invitaciones' },
  { kind: 'auditoria', segment: 'auditoria', label: 'Auditoría' },
] as const;
export type SectionKind = (typeof SECTIONS)[number]['kind'];

export function viewOf(pathname: string): ConsoleView {
  const rest = pathname.replace(/^\/comercio\/?/, '');
  if (rest === pathname) return { kind: 'none' };
  const parts = rest.split('/').filter((part) => part !== '');
  if (parts.length === 0) return { kind: 'resumen' };
  const [first, second] = parts;
  if (parts.length === 2 && first === 'pagos' && /^[1-9]\d{0,15}$/.test(second ?? ''))
    return { kind: 'pago', id: Number(second) };
  if (parts.length === 1) {
    const section = SECTIONS.find((entry) => entry.segment === first);
    if (section) return { kind: section.kind };
  }
  return { kind: 'none' };
}

export function pathOf(view: ConsoleView): string {
  if (view.kind === 'pago') return `${CONSOLE_ROOT}pagos/${view.id}`;
  if (view.kind === 'none') return CONSOLE_ROOT;
  const section = SECTIONS.find((entry) => entry.kind === view.kind);
  return `${CONSOLE_ROOT}${section?.segment ?? ''}`;
}

/** The nav section a view belongs to (a payment's detail is under Pagos). */
export function sectionOf(view: ConsoleView): SectionKind | null {
  if (view.kind === 'pago') return 'pagos';
  if (view.kind === 'none') return null;
  return view.kind;
}
