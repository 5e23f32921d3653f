/**
 * Runs `work` once the page has loaded and the browser is idle (or after a short wait where
 * requestIdleCallback is missing, as in Safari): for fetches that must not share a slow link's
 * bytes with what the page needs first. Answers a cancel for an unmounted page.
 */
export function whenIdleAfterLoad(work: () => void): () => void {
  let cancelled = false;
  let idle: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    if (!cancelled) work();
  };
  const start = () => {
    if (cancelled) return;
    if (typeof window.requestIdleCallback === 'function')
      idle = window.requestIdleCallback(run, { timeout: 2_000 });
    else timer = setTimeout(run, 200);
  };
  if (document.readyState === 'complete') start();
  else window.addEventListener('load', start, { once: true });
  return () => {
    cancelled = true;
    window.removeEventListener('load', start);
    if (idle !== undefined) window.cancelIdleCallback(idle);
    if (timer !== undefined) clearTimeout(timer);
  };
}
