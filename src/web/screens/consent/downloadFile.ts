/** Name under which the participant's copy of the signed consent form is saved. */
export const CONSENT_PDF_FILENAME = 'consentement.pdf';

/**
 * Hands a blob to the browser as a download (a temporary link clicked once). The object URL is released
 * later, not at once: some browsers start reading it only after the click handler returns.
 */
export function downloadBlob(blob: Blob, filename: string): boolean {
  if (typeof document === 'undefined' || typeof URL.createObjectURL !== 'function') return false; // e.g. jsdom, Node
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return true;
}
