/** Hands `blob` to the browser as a download named `filename`. */
export function saveBlob(blob: Blob, filename: string): void {
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

/**
 * A PDF behind the access token (receipt, coupon) cannot be a plain link: it is fetched with the
 * token (`load`: session.ts's authBlob of its route) and handed to the browser as a download.
 * Throws ApiError with a Spanish message.
 */
export async function downloadPdf(load: () => Promise<Blob>, filename: string): Promise<void> {
  saveBlob(await load(), filename);
}

/** Whether this browser can share a PDF file (Web Share API level 2: phones, mostly). */
export function canSharePdf(): boolean {
  if (typeof navigator.canShare !== 'function' || typeof File !== 'function') return false;
  try {
    return navigator.canShare({
      files: [new File([''], 'cupon.pdf', { type: 'application/pdf' })],
    });
  } catch {
    return false;
  }
}

/**
 * The PDF shared through the system's share sheet (WhatsApp, mail, files), or downloaded when
 * the browser cannot share this file after all. A share the customer cancels is not an error.
 */
export async function sharePdf(
  load: () => Promise<Blob>,
  filename: string,
  title: string,
): Promise<void> {
  const blob = await load();
  const file = new File([blob], filename, { type: 'application/pdf' });
  if (!navigator.canShare({ files: [file] })) {
    saveBlob(blob, filename);
    return;
  }
  try {
    await navigator.share({ files: [file], title });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') return;
    // Refused (the click's activation expired while the PDF was fetched, say): save it instead.
    saveBlob(blob, filename);
  }
}
