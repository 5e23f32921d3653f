import { authBlob } from '../session/session.js';

/**
 * A PDF behind the access token (receipt, coupon) cannot be a plain link: it is fetched with the
 * token and handed to the browser as a download. Throws ApiError with a Spanish message.
 */
export async function downloadPdf(path: string, filename: string): Promise<void> {
  const blob = await authBlob(path);
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = filename;
  anchor.rel = 'noopener';
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
