import net from 'node:net';

/** An answer read off the socket as it came: status, headers (lower-case names), body. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * `text` written as it is on a new connection to 127.0.0.1:`port`, and the answer read until
 * the connection closes: for requests that `inject` or an HTTP client would not send (a
 * malformed escape or header, an unknown method, a header section over Node's limit).
 */
export function sendRaw(port: number, text: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that answers before reading all (413, 431) may reset the rest: its answer came.
    socket.on('error', (error) => {
      if (chunks.length === 0) reject(error);
    });
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString();
      const [head = '', ...rest] = raw.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

/** A request line and headers (and a body) as text, asking to close the connection after. */
export function rawRequest(line: string, headers: Record<string, string> = {}, body = ''): string {
  const all = { host: '127.0.0.1', connection: 'close', ...headers };
  const head = Object.entries(all).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${line}\r\n${head.join('')}\r\n${body}`;
}

/** The port a listening Fastify app's server is bound to. */
export function portOf(server: net.Server): number {
  return (server.address() as net.AddressInfo).port;
}
