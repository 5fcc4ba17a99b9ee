// Shared helpers for the embedded Toxiproxy tests: loopback upstream servers and bounded
// socket helpers. Every wait has a deadline so a broken proxy fails a test instead of hanging it.
import net from 'node:net';
import { performance } from 'node:perf_hooks';

export interface TestServer {
  /** host:port, as a Toxiproxy `upstream`. */
  address: string;
  port: number;
  /** Sockets the server accepted (for asserting what the upstream saw). */
  sockets: net.Socket[];
  close(): Promise<void>;
}

/** A TCP server on 127.0.0.1:0 running `onConnection` for each socket. */
export async function startServer(onConnection: (sock: net.Socket) => void): Promise<TestServer> {
  const sockets: net.Socket[] = [];
  const server = net.createServer((sock) => {
    sockets.push(sock);
    sock.on('error', () => undefined);
    onConnection(sock);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    address: `127.0.0.1:${port}`,
    port,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Echo server: writes back whatever it reads. */
export function startEcho(): Promise<TestServer> {
  return startServer((sock) => sock.pipe(sock));
}

/** Server that writes `payload` as soon as a client connects, then (optionally) ends. */
export function startSender(payload: Buffer, end = true): Promise<TestServer> {
  return startServer((sock) => {
    if (end) sock.end(payload);
    else sock.write(payload);
  });
}

export function hostPort(listen: string): { host: string; port: number } {
  const i = listen.lastIndexOf(':');
  return { host: listen.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(listen.slice(i + 1)) };
}

/** Connect to a proxy's `listen` address; rejects with the socket error (e.g. ECONNREFUSED). */
export function connect(listen: string, timeoutMs = 3000): Promise<net.Socket> {
  const { host, port } = hostPort(listen);
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host, port });
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`connect ${listen} timed out`));
    }, timeoutMs);
    sock.once('connect', () => {
      clearTimeout(timer);
      sock.off('error', onError);
      sock.on('error', () => undefined);
      resolve(sock);
    });
    const onError = (err: Error): void => {
      clearTimeout(timer);
      reject(err);
    };
    sock.once('error', onError);
  });
}

/** Write `payload` and wait until as many bytes come back; returns the round-trip time in ms. */
export function roundTrip(sock: net.Socket, payload: string | Buffer, timeoutMs = 5000): Promise<{ data: Buffer; ms: number }> {
  const want = Buffer.from(payload);
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let got = 0;
    const t0 = performance.now();
    const cleanup = (): void => {
      clearTimeout(timer);
      sock.off('data', onData);
      sock.off('close', onClose);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`round trip timed out after ${timeoutMs} ms (${got}/${want.length} bytes)`));
    }, timeoutMs);
    const onData = (d: Buffer): void => {
      parts.push(d);
      got += d.length;
      if (got >= want.length) {
        cleanup();
        resolve({ data: Buffer.concat(parts), ms: performance.now() - t0 });
      }
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error(`connection closed during round trip (${got}/${want.length} bytes)`));
    };
    sock.on('data', onData);
    sock.once('close', onClose);
    sock.write(want);
  });
}

export interface Outcome {
  chunks: Buffer[];
  data: Buffer;
  /** How the wait ended: peer closed cleanly, socket error, or our deadline passed with the socket open. */
  how: 'closed' | 'error' | 'deadline';
  error?: NodeJS.ErrnoException;
  /** ms from the start of the wait until it ended (close/error/deadline). */
  ms: number;
  /** ms from the start of the wait until the first/last byte arrived (undefined if none). */
  firstByteMs?: number;
  lastByteMs?: number;
}

/** Collect everything the socket receives until it closes/errors or `deadlineMs` passes. */
export function collect(sock: net.Socket, deadlineMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const t0 = performance.now();
    let firstByteMs: number | undefined;
    let lastByteMs: number | undefined;
    let error: NodeJS.ErrnoException | undefined;
    let done = false;
    const finish = (how: Outcome['how']): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.off('data', onData);
      resolve({ chunks, data: Buffer.concat(chunks), how, error, ms: performance.now() - t0, firstByteMs, lastByteMs });
    };
    const onData = (d: Buffer): void => {
      const now = performance.now() - t0;
      firstByteMs ??= now;
      lastByteMs = now;
      chunks.push(d);
    };
    const timer = setTimeout(() => finish('deadline'), deadlineMs);
    sock.on('data', onData);
    sock.on('error', (err: NodeJS.ErrnoException) => {
      error = err;
      finish('error');
    });
    sock.once('close', () => finish(error ? 'error' : 'closed'));
    if (sock.destroyed) finish('closed');
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Raw HTTP call to the API, returning status, headers and parsed (if JSON) body. */
export async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
