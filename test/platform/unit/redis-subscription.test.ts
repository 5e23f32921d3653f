import net from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { connectRedis, createRedisOutage, subscribeTo } from '../../../src/platform/redis.js';

/*
 * The session-ended subscription across a Redis that comes back and is lost again before it
 * answers SUBSCRIBE. A small server speaking Redis's protocol (RESP) plays Redis: it answers the
 * ready check and SUBSCRIBE, cuts the connection on SUBSCRIBE, or holds it unanswered, as the
 * test says. ioredis's own resubscription sends SUBSCRIBE with nothing to catch its failure: the
 * connection closed before Redis answered was an unhandled rejection (seen when the redis-outage
 * test's app closed after its Redis), which stops a Node process.
 */
const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;

/** The commands (arrays of bulk strings) in what a client sent. */
function commandsIn(text: string): string[][] {
  const commands: string[][] = [];
  const lines = text.split('\r\n');
  for (let at = 0; at < lines.length; at += 1) {
    const count = /^\*(\d+)$/.exec(lines[at] ?? '')?.[1];
    if (count === undefined) continue;
    const words: string[] = [];
    for (let n = 0; n < Number(count); n += 1) {
      words.push(lines[at + 2] ?? '');
      at += 2;
    }
    commands.push(words);
  }
  return commands;
}

function fakeRedis() {
  const sockets = new Set<net.Socket>();
  const state = { onSubscribe: 'answer' as 'answer' | 'cut' | 'hold', subscribes: 0 };
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.on('data', (data) => {
      for (const [name = '', channel = ''] of commandsIn(data.toString())) {
        // An older Redis: no HELLO, so the client keeps to RESP2 (pushes are plain arrays).
        if (name.toLowerCase() === 'hello') socket.write("-ERR unknown command 'hello'\r\n");
        else if (name.toLowerCase() === 'info') socket.write(bulk('# Server\r\nloading:0\r\n'));
        else if (name.toLowerCase() !== 'subscribe') socket.write('+OK\r\n');
        else {
          state.subscribes += 1;
          if (state.onSubscribe === 'cut') socket.destroy();
          else if (state.onSubscribe === 'answer')
            socket.write(`*3\r\n${bulk('subscribe')}${bulk(channel)}:1\r\n`);
        }
      }
    });
  });
  return {
    state,
    listen: () =>
      new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
      ),
    cutAll: () => sockets.forEach((socket) => socket.destroy()),
    publish: (channel: string, message: string) =>
      sockets.forEach((socket) =>
        socket.write(`*3\r\n${bulk('message')}${bulk(channel)}${bulk(message)}`),
      ),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(condition: () => boolean, what: string) {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A client subscribed to `ended` on a fake Redis, and the rejections nobody handled meanwhile. */
async function subscribed() {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  cleanups.push(() => process.off('unhandledRejection', onUnhandled));

  const redisServer = fakeRedis();
  cleanups.push(() => redisServer.close());
  const port = await redisServer.listen();
  const redis = await connectRedis(
    `redis://127.0.0.1:${port}`,
    createRedisOutage(pino({ level: 'silent' })),
  );
  cleanups.push(() => redis.disconnect());
  const received: string[] = [];
  const subscriber = await subscribeTo(redis, 'ended', (message) => received.push(message));
  cleanups.push(() => subscriber.disconnect());
  return { redisServer, subscriber, received, unhandled };
}

describe('the session-ended subscription', () => {
  it('survives a Redis lost again before it answers SUBSCRIBE, and subscribes once it answers', async () => {
    const { redisServer, received, unhandled } = await subscribed();
    redisServer.publish('ended', 'first');
    await until(() => received.includes('first'), 'the first message');

    // Back, then lost before it answers SUBSCRIBE, a few times over.
    redisServer.state.onSubscribe = 'cut';
    const before = redisServer.state.subscribes;
    redisServer.cutAll();
    await until(() => redisServer.state.subscribes >= before + 3, 'three cut resubscriptions');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(unhandled).toEqual([]);

    // Answering again: subscribed again, messages arrive.
    redisServer.state.onSubscribe = 'answer';
    const answered = redisServer.state.subscribes;
    await until(() => redisServer.state.subscribes > answered, 'a resubscription answered');
    await new Promise((resolve) => setTimeout(resolve, 50));
    redisServer.publish('ended', 'second');
    await until(() => received.includes('second'), 'the message after the outage');
    expect(unhandled).toEqual([]);
  });

  it('closed while a resubscription waits for Redis to answer: nothing is left unhandled', async () => {
    const { redisServer, subscriber, unhandled } = await subscribed();

    redisServer.state.onSubscribe = 'hold';
    const before = redisServer.state.subscribes;
    redisServer.cutAll();
    await until(() => redisServer.state.subscribes > before, 'a resubscription sent');
    // The process stops (or the app closes) before Redis answers it.
    subscriber.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(unhandled).toEqual([]);
  });
});
