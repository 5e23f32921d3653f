/** A one-time notice carried to the next page ("Contraseña cambiada", "Cuenta creada"). */
let pending: string | null = null;

export function setFlash(message: string): void {
  pending = message;
}

export function takeFlash(): string | null {
  const message = pending;
  pending = null;
  return message;
}
