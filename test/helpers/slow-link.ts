import http from 'node:http';

/**
 * An HTTP forwarder on 127.0.0.1 in front of a real server that hands every answer to the
 * browser `delayMs` after the server gave it: a slow link on which the server has already done
 * the work (a refresh token rotated, say) while its answer is still on the way. CDP throttling
 * cannot stand in for this, since it holds the request back before the server sees it.
 */
export interface SlowLink {
  /** `http://127.0.0.1:<port>`: the page's origin when it loads through the link. */
  readonly url: string;
  /**
   * The next request for `path`: `answered` when the server has answered it (the answer still
   * held here), `delivered` once the answer was handed over (true) or the browser gave up on
   * the request first (false).
   */
  watch(path: string): { answered: Promise<void>; delivered: Promise<boolean> };
  close(): Promise<void>;
}

export async function startSlowLink(
  targetUrl: string,
  port: number,
  delayMs: number,
): Promise<SlowLink> {
  const target = new URL(targetUrl);
  interface Watcher {
    path: string;
    answered: () => void;
    delivered: (handedOver: boolean) => void;
  }
  const watchers: Watcher[] = [];

  const server = http.createServer((request, response) => {
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const path = (request.url ?? '').split('?')[0];
          const index = watchers.findIndex((candidate) => candidate.path === path);
          const watcher = index === -1 ? undefined : watchers.splice(index, 1)[0];
          watcher?.answered();
          setTimeout(() => {
            // The browser may have given up on the request meanwhile (a page it closed).
            if (response.destroyed || request.socket.destroyed) {
              watcher?.delivered(false);
              return;
            }
            response.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
            response.end(Buffer.concat(chunks), () => watcher?.delivered(true));
          }, delayMs);
        });
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });

  return {
    url: `http://127.0.0.1:${port}`,
    watch(path) {
      let answered = (): void => undefined;
      let delivered = (_handedOver: boolean): void => undefined;
      const watched = {
        answered: new Promise<void>((resolve) => (answered = resolve)),
        delivered: new Promise<boolean>((resolve) => (delivered = resolve)),
      };
      watchers.push({ path, answered, delivered });
      return watched;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
