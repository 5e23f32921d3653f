import net from 'node:net';

/**
 * A TCP forwarder on 127.0.0.1 in front of a real server (Redis here), so a test can take that
 * server "down" for one app without touching the machine's shared instance, which other test
 * files use at the same time.
 */
export interface TcpProxy {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` style URL of the proxy, keeping the target's scheme and path. */
  readonly url: string;
  /** Cuts every open connection and refuses new ones: clients see the server go away. */
  stop(): Promise<void>;
  /** Accepts again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const targetHost = target.hostname.replace(/^\[|\]$/g, '');
  const targetPort = Number(target.port || 6379);
  const sockets = new Set<net.Socket>();

  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A reset peer is what the test wants; the error must not crash the run.
    socket.on('error', () => socket.destroy());
  };

  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    track(client);
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });

  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        const address = server.address();
        if (address && typeof address === 'object') port = address.port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) {
        resolve();
        return;
      }
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });

  await listen();
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  return {
    get port() {
      return port;
    },
    url: url.toString().replace(/\/$/, ''),
    stop,
    start: listen,
    close: stop,
  };
}
