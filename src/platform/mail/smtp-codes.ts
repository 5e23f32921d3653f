/**
 * nodemailer's error code and SMTP reply code of a refused message, without its message (which
 * may quote the recipient's address): what a job's log and its failure may say about it.
 */
export function smtpCodes(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'unknown';
  const code = 'code' in error ? error.code : undefined;
  const responseCode = 'responseCode' in error ? error.responseCode : undefined;
  const parts = [code, responseCode].filter(
    (part): part is string | number => typeof part === 'string' || typeof part === 'number',
  );
  return parts.join(' ') || 'unknown';
}
