import { access } from 'node:fs/promises';

/** Loads `.env` into process.env when present; variables already set win (Node's own rule). */
export async function loadEnvFile(file = '.env'): Promise<void> {
  const present = await access(file).then(
    () => true,
    () => false,
  );
  if (present) process.loadEnvFile(file);
}
