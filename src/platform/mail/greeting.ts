/**
 * The first line of every e-mail to a customer: their name as the ERP holds it, addressed as the
 * home page addresses them ("Hola, Juan Pérez"), or a bare "Hola:" when it is unknown. ERP names
 * may come padded.
 */
export function greeting(nombre: string | null | undefined): string {
  const name = nombre?.trim();
  return name ? `Hola, ${name}:` : 'Hola:';
}
