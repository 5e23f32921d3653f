import net from 'node:net';

/*
 * The kernel may hand the same ephemeral port to two binds in a row once the first is closed:
 * a test that asks for an API port and a reports port got the same one and the second listen
 * failed with EADDRINUSE. A port handed out once in this process is never handed out again.
 */
const handedOut = new Set<number>();

/** A TCP port free on 127.0.0.1 right now, and never returned before by this process. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await unboundPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

function unboundPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
