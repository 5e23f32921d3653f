// The image's HEALTHCHECK: exit 0 when /healthz answers 200 within the engine's timeout. The
// image has no curl; Node's fetch does the same. The API's address by default, HEALTHCHECK_URL
// for the reports service (its REPORTS_URL's /healthz).
const port = process.env.PORT ?? '3000';
const url = process.env.HEALTHCHECK_URL ?? `http://127.0.0.1:${port}/healthz`;

try {
  const response = await fetch(url, { signal: AbortSignal.timeout(4_000) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
