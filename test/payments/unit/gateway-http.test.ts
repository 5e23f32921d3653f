import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES, requestJson } from '../../../src/platform/providers/http.js';
import { GatewayError } from '../../../src/modules/payments/gateways/types.js';

let server: Server;
let base: string;
let bytesSent = 0;

beforeAll(async () => {
  // A gateway that answers JSON of the size asked for, in 64 KB chunks.
  server = createServer((request, response) => {
    const size = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('size'));
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, ' ');
    let left = size - 2;
    response.write('[');
    const pump = () => {
      while (left > 0) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        bytesSent += part.length;
        if (!response.write(part)) return void response.once('drain', pump);
      }
      response.end(']');
    };
    response.on('error', () => undefined);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const call = (size: number) =>
  requestJson({
    gateway: 'test',
    method: 'GET',
    url: `${base}/v1/x?size=${size}`,
    timeoutMs: 5_000,
  });

describe('a gateway answer', () => {
  it('of ordinary size is read and parsed', async () => {
    expect(await call(10_000)).toEqual({ status: 200, body: [] });
  });

  it('past 1 MiB is a GatewayError, and the rest of it is not read', async () => {
    bytesSent = 0;
    const error = await call(50 * 1024 * 1024).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).message).toBe(
      `test GET /v1/x: answer larger than ${MAX_ANSWER_BYTES} bytes`,
    );
    // The connection was dropped near the cap, not after 50 MiB.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bytesSent).toBeLessThan(10 * 1024 * 1024);
  });
});
