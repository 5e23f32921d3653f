import net from 'node:net';

/**
 * A TCP forwarder on 127.0.0.1 in front of a real PostgreSQL server that reads what clients send
 * it (the frontend side of the wire protocol) and records every round trip: a simple Query, or
 * the extended protocol's Parse/Bind/Execute messages up to their Sync, after which the client
 * waits for the server's answer. Each round trip is kept with the connection's application_name
 * and database (from its startup message) and the SQL of the statements it ran, named prepared
 * statements included (their text is taken from the Parse that created them on that connection,
 * whenever it was). What the server answers is passed on untouched and not read.
 */
export interface RoundTrip {
  application: string;
  database: string;
  /** The SQL of each statement the round trip ran, in order. */
  statements: string[];
}

export interface PgRoundTrips {
  /** `url` (a database URL on the proxied server) pointed at the forwarder. */
  through(url: string): string;
  /** Round trips completed since the start or the last `clear()`. */
  seen(): RoundTrip[];
  clear(): void;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/** One client connection's reader: frames its messages and keeps its named statements. */
function frontendReader(record: (trip: RoundTrip) => void) {
  let buffer = Buffer.alloc(0);
  let started = false;
  let application = '';
  let database = '';
  const named = new Map<string, string>();
  /** The unnamed statement's text, replaced by each Parse without a name. */
  let unnamed = '';
  let pending: string[] = [];

  const cstrings = (body: Buffer, count: number): string[] => {
    const out: string[] = [];
    let at = 0;
    for (let i = 0; i < count; i += 1) {
      const end = body.indexOf(0, at);
      out.push(body.toString('utf8', at, end));
      at = end + 1;
    }
    return out;
  };

  const startup = (body: Buffer) => {
    const code = body.readInt32BE(0);
    // SSL or GSS encryption asked first: the startup message itself follows.
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) return;
    started = true;
    const fields = body.toString('utf8', 4).split('\0');
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] === 'application_name') application = fields[i + 1] ?? '';
      if (fields[i] === 'database') database = fields[i + 1] ?? '';
    }
  };

  const message = (type: string, body: Buffer) => {
    if (type === 'Q') {
      record({ application, database, statements: [...pending, ...cstrings(body, 1)] });
      pending = [];
    } else if (type === 'P') {
      const [name = '', text = ''] = cstrings(body, 2);
      if (name === '') unnamed = text;
      else named.set(name, text);
    } else if (type === 'B') {
      const [, statement = ''] = cstrings(body, 2);
      pending.push(statement === '' ? unnamed : (named.get(statement) ?? `<${statement}>`));
    } else if (type === 'S') {
      record({ application, database, statements: pending });
      pending = [];
    }
  };

  return (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (!started) {
        if (buffer.length < 4) return;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        startup(buffer.subarray(4, length));
        buffer = buffer.subarray(length);
        continue;
      }
      if (buffer.length < 5) return;
      const length = buffer.readInt32BE(1);
      if (buffer.length < 1 + length) return;
      message(String.fromCharCode(buffer[0] ?? 0), buffer.subarray(5, 1 + length));
      buffer = buffer.subarray(1 + length);
    }
  };
}

export async function startPgRoundTrips(serverUrl: string): Promise<PgRoundTrips> {
  const target = new URL(serverUrl);
  const targetPort = Number(target.port || 5432);
  const sockets = new Set<net.Socket>();
  let trips: RoundTrip[] = [];

  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, target.hostname);
    track(client);
    track(upstream);
    const read = frontendReader((trip) => trips.push(trip));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    // Read before forwarding: by the time the server answers, the round trip is recorded.
    client.on('data', (chunk: Buffer) => {
      read(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = address && typeof address === 'object' ? address.port : 0;

  return {
    through(url) {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(port);
      return proxied.toString();
    },
    seen: () => [...trips],
    clear() {
      trips = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
