// One TCP proxy (Toxiproxy's proxy.go), its per-connection links (link.go), toxic chains
// (toxic_collection.go) and the named set of proxies (proxy_collection.go).
//
//   client ──▶ [upstream link: toxic ▶ toxic ▶ …] ──▶ upstream server
//   client ◀── [downstream link: toxic ▶ toxic ▶ …] ◀── upstream server
//
// Each link runs one stage per toxic of its direction; a toxic's toxicity is rolled when its
// stage starts on a link (link start, toxic added to a live link, toxic updated), so it holds
// per connection, not per request. Like Toxiproxy there is no TCP half-close: when one direction
// ends, the destination socket is closed and the other direction ends too.

import net from 'node:net';
import dns from 'node:dns/promises';
import { performance } from 'node:perf_hooks';
import {
  getToxicDefinition,
  noopStage,
  type Attributes,
  type Chunk,
  type StubEvent,
  type ToxicDefinition,
  type ToxicStage,
  type ToxicStub,
} from './toxics/index.ts';

export type Direction = 'upstream' | 'downstream';
const DIRECTIONS: readonly Direction[] = ['upstream', 'downstream']; // Go's stream.Upstream = 0

/** Source reading pauses while this many bytes wait in a link's toxic queues / destination. */
const HIGH_WATER = 1 << 20;
const LOW_WATER = 1 << 18;

// ---------------------------------------------------------------------------------------------
// Errors (api.go): every API failure is `{ error, status }`.

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
  toJSON(): { error: string; status: number } {
    return { error: this.message, status: this.status };
  }
}

export const Errors = {
  badRequestBody: (detail: string) => new ApiError(`bad request body: ${detail}`, 400),
  missingField: (detail: string) => new ApiError(`missing required field: ${detail}`, 400),
  proxyNotFound: () => new ApiError('proxy not found', 404),
  proxyAlreadyExists: () => new ApiError('proxy already exists', 409),
  invalidStream: () => new ApiError('stream was invalid, can be either upstream or downstream', 400),
  invalidToxicType: () => new ApiError('invalid toxic type', 400),
  toxicAlreadyExists: () => new ApiError('toxic already exists', 409),
  toxicNotFound: () => new ApiError('toxic not found', 404),
};

/** Any non-ApiError becomes a 500 carrying its message, as Toxiproxy's apiError does. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError(err instanceof Error ? err.message : String(err), 500);
}

class ProxyAlreadyStarted extends Error {}

// ---------------------------------------------------------------------------------------------
// Small helpers

/** Serialises async operations (Go's sync.Mutex around proxy and collection state). */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** Shortest decimal that round-trips as float32 (how Go marshals the float32 toxicity). */
export function float32Json(x: number): number {
  const f = Math.fround(x);
  if (!Number.isFinite(f)) return f;
  for (let p = 1; p <= 9; p++) {
    const v = Number(f.toPrecision(p));
    if (Math.fround(v) === f) return v;
  }
  return f;
}

function splitHostPort(addr: string): { host: string; port: string } {
  const i = addr.lastIndexOf(':');
  if (i < 0) throw new Error(`address ${addr}: missing port in address`);
  let host = addr.slice(0, i);
  const port = addr.slice(i + 1);
  if (host.startsWith('[')) {
    if (!host.endsWith(']')) throw new Error(`address ${addr}: missing ']' in address`);
    host = host.slice(1, -1);
  } else if (host.includes(':')) {
    throw new Error(`address ${addr}: too many colons in address`);
  }
  return { host, port };
}

function parsePort(addr: string, port: string): number {
  if (port === '') return 0;
  if (!/^\d+$/.test(port) || Number(port) > 65535) throw new Error(`address ${addr}: invalid port`);
  return Number(port);
}

function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

const WILDCARDS = new Set(['', '0.0.0.0', '::']);

/** Go's wording for common bind failures. */
const BIND_ERRORS: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'cannot assign requested address',
};

/** Resolve a host the way Go's net.Listen does (first address, IPv4 preferred). */
async function resolveListenHost(host: string): Promise<string> {
  if (WILDCARDS.has(host) || net.isIP(host)) return host;
  if (host === 'localhost') return '127.0.0.1';
  try {
    return (await dns.lookup(host, { family: 4 })).address;
  } catch {
    return (await dns.lookup(host)).address;
  }
}

/** Go's net.ResolveTCPAddr(listen).String(), used to decide whether populate replaces a proxy. */
async function resolvedListenString(listen: string): Promise<string> {
  const { host, port } = splitHostPort(listen);
  const p = parsePort(listen, port);
  if (host === '') return `:${p}`;
  return joinHostPort(await resolveListenHost(host), p);
}

// ---------------------------------------------------------------------------------------------
// Toxics as configured on a proxy (Toxiproxy's ToxicWrapper)

export interface ToxicJson {
  attributes: Attributes;
  name: string;
  type: string;
  stream: string;
  toxicity: number;
}

export class Toxic {
  constructor(
    readonly name: string,
    readonly type: string,
    readonly stream: string,
    readonly direction: Direction,
    public toxicity: number,
    public attributes: Attributes,
    readonly def: ToxicDefinition,
  ) {}

  toJSON(): ToxicJson {
    return {
      attributes: { ...this.attributes },
      name: this.name,
      type: this.type,
      stream: this.stream,
      toxicity: float32Json(this.toxicity),
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Links: one direction of one connection, running a stage per toxic.

const EOF = Symbol('eof');
type Item = Chunk | typeof EOF;

/** A toxic running on one link; it is the stub the toxic's `pipe` talks to. */
class Runner implements ToxicStub {
  state: unknown;
  closed = false;
  /** Spliced out of its link: anything it still sends is dropped. */
  detached = false;
  /** Whether this link's toxicity roll selected the real toxic (else noop ran). */
  applied = false;
  private queue: Item[] = [];
  queuedBytes = 0;
  private eofSeen = false;
  private interruptPending = false;
  private waiter: ((ev: StubEvent) => void) | null = null;
  private waiterTimer: NodeJS.Timeout | null = null;
  private sleeper: ((ok: boolean) => void) | null = null;
  private running: Promise<void> | null = null;
  private stage: ToxicStage = noopStage;

  constructor(
    readonly link: Link,
    public toxic: Toxic,
  ) {
    this.state = toxic.def.newState?.();
  }

  start(): void {
    this.interruptPending = false;
    this.applied = Math.random() < this.toxic.toxicity;
    this.stage = this.applied ? this.toxic.def.create({ ...this.toxic.attributes }) : noopStage;
    const stage = this.stage;
    this.running = (async () => {
      try {
        await stage.pipe(this);
      } catch {
        this.close();
      }
    })();
  }

  /** Ask the running toxic to return, and wait until it has. */
  async interrupt(): Promise<void> {
    if (!this.running) return;
    this.interruptPending = true;
    this.wake({ kind: 'interrupt' }, false);
    await this.running;
    this.running = null;
    this.interruptPending = false;
  }

  /** Wake whatever the toxic is waiting on (used for interrupts and link teardown). */
  wake(ev: StubEvent, sleepOk: boolean): void {
    const w = this.waiter;
    if (w) {
      this.clearWaiter();
      w(ev);
    }
    this.sleeper?.(sleepOk); // clears this.sleeper itself
  }

  cleanup(): void {
    if (this.applied && !this.closed) this.stage.cleanup?.(this);
  }

  /** Input from the previous stage (or the source socket). */
  push(item: Item): void {
    if (this.closed || this.link.dead) {
      return;
    }
    if (this.waiter && this.queue.length === 0 && !this.interruptPending) {
      const w = this.waiter;
      this.clearWaiter();
      if (item === EOF) {
        this.eofSeen = true;
        w({ kind: 'eof' });
      } else {
        w({ kind: 'chunk', chunk: item });
      }
      return;
    }
    this.queue.push(item);
    if (item !== EOF) this.queuedBytes += item.data.length;
  }

  /** Queued input not yet taken by the toxic, for handing on when the toxic is removed. */
  drain(): Item[] {
    const items = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    if (this.eofSeen && !items.includes(EOF)) items.push(EOF);
    return items;
  }

  private clearWaiter(): void {
    this.waiter = null;
    if (this.waiterTimer) clearTimeout(this.waiterTimer);
    this.waiterTimer = null;
  }

  // --- ToxicStub ---

  next(timeoutMs?: number): Promise<StubEvent> {
    if (this.link.dead || this.interruptPending) return Promise.resolve({ kind: 'interrupt' });
    const item = this.queue.shift();
    if (item !== undefined) {
      if (item === EOF) {
        this.eofSeen = true;
        return Promise.resolve({ kind: 'eof' });
      }
      this.queuedBytes -= item.data.length;
      this.link.checkFlow();
      return Promise.resolve({ kind: 'chunk', chunk: item });
    }
    if (this.eofSeen) return Promise.resolve({ kind: 'eof' });
    return new Promise<StubEvent>((resolve) => {
      this.waiter = resolve;
      if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
        this.waiterTimer = setTimeout(
          () => {
            if (this.waiter === resolve) {
              this.clearWaiter();
              resolve({ kind: 'timeout' });
            }
          },
          Math.max(0, timeoutMs),
        );
      }
    });
  }

  sleep(ms: number): Promise<boolean> {
    if (this.link.dead || this.interruptPending) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
      const done = (ok: boolean): void => {
        if (this.sleeper !== done) return;
        this.sleeper = null;
        if (timer) {
          clearTimeout(timer as NodeJS.Timeout);
          clearImmediate(timer as NodeJS.Immediate);
        }
        resolve(ok);
      };
      this.sleeper = done;
      if (!Number.isFinite(ms)) return; // until interrupted
      // Node timers have 1 ms resolution; sub-millisecond sleeps just yield to I/O.
      timer = ms >= 1 ? setTimeout(() => done(true), ms) : setImmediate(() => done(true));
    });
  }

  async wait(ms: number): Promise<void> {
    if (this.link.dead) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, Math.max(0, ms));
      const off = this.link.onDeath(finish);
      function finish(): void {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  }

  send(chunk: Chunk): void {
    if (this.detached || this.link.dead) return;
    this.link.deliverAfter(this, chunk);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.queuedBytes = 0;
    if (!this.detached) this.link.deliverAfter(this, EOF);
    this.link.checkFlow();
  }
}

/** Closes a socket the way Go's TCPConn.Close does: FIN after pending writes, or RST if lingering 0. */
function closeSocket(sock: net.Socket, reset: boolean): void {
  if (sock.destroyed) return;
  if (reset) {
    sock.resetAndDestroy();
    return;
  }
  if (sock.writableEnded) return;
  sock.end(() => sock.destroy());
}

class Link {
  runners: Runner[] = [];
  dead = false;
  private sourceDone = false;
  private sinkDone = false;
  private paused = false;
  private deathListeners = new Set<() => void>();
  private readonly onData = (data: Buffer): void => {
    this.deliver(0, { data, ts: performance.now() });
  };
  private readonly onSourceEnd = (): void => this.endSource();
  private readonly onDrain = (): void => this.checkFlow();
  /** The destination is gone (peer reset/closed it): nothing more can be written, so this link is over. */
  private readonly onDestClose = (): void => {
    if (this.sinkDone) return;
    this.sinkDone = true;
    this.conn.linkEnded(this);
  };

  constructor(
    readonly conn: Connection,
    readonly direction: Direction,
    readonly source: net.Socket,
    readonly dest: net.Socket,
  ) {}

  start(toxics: readonly Toxic[]): void {
    for (const t of toxics) {
      if (t.def.resetOnClose) {
        this.conn.linger0.add(this.source);
        this.conn.linger0.add(this.dest);
      }
      this.runners.push(new Runner(this, t));
    }
    for (const r of this.runners) r.start();
    this.source.on('data', this.onData);
    this.source.on('end', this.onSourceEnd);
    this.source.on('close', this.onSourceEnd);
    this.dest.on('drain', this.onDrain);
    this.dest.on('close', this.onDestClose);
  }

  onDeath(fn: () => void): () => void {
    this.deathListeners.add(fn);
    return () => this.deathListeners.delete(fn);
  }

  /** The source stopped (EOF, error, closed by the other direction): end of input. */
  endSource(): void {
    if (this.sourceDone) return;
    this.sourceDone = true;
    this.source.off('data', this.onData);
    this.source.off('end', this.onSourceEnd);
    this.source.off('close', this.onSourceEnd);
    this.deliver(0, EOF);
  }

  deliverAfter(runner: Runner, item: Item): void {
    const i = this.runners.indexOf(runner);
    if (i < 0) return;
    this.deliver(i + 1, item);
  }

  private deliver(index: number, item: Item): void {
    if (this.dead) return;
    if (index < this.runners.length) {
      this.runners[index].push(item);
      this.checkFlow();
      return;
    }
    this.sink(item);
  }

  private sink(item: Item): void {
    if (this.sinkDone) return;
    if (item === EOF) {
      this.sinkDone = true;
      this.dest.off('drain', this.onDrain);
      this.dest.off('close', this.onDestClose);
      this.conn.linkEnded(this);
      return;
    }
    if (!this.dest.destroyed && !this.dest.writableEnded) this.dest.write(item.data);
    this.checkFlow();
  }

  /** Backpressure: pause the source while too much waits in toxic queues or in dest. */
  checkFlow(): void {
    if (this.sourceDone || this.dead) return;
    let pressure = this.dest.writableLength;
    for (const r of this.runners) pressure += r.queuedBytes;
    if (!this.paused && pressure > HIGH_WATER) {
      this.paused = true;
      this.source.pause();
    } else if (this.paused && pressure < LOW_WATER) {
      this.paused = false;
      this.source.resume();
    }
  }

  get ended(): boolean {
    return this.sinkDone;
  }

  addToxic(toxic: Toxic): void {
    if (this.sinkDone || this.dead) return;
    const r = new Runner(this, toxic);
    this.runners.push(r);
    r.start();
  }

  async updateToxic(toxic: Toxic): Promise<void> {
    const r = this.runners.find((x) => x.toxic.name === toxic.name);
    if (!r || r.closed) return;
    await r.interrupt();
    if (r.closed || r.detached || this.dead) return;
    r.toxic = toxic;
    r.start();
  }

  async removeToxic(name: string): Promise<void> {
    const r = this.runners.find((x) => x.toxic.name === name);
    if (!r) return;
    if (!r.closed) {
      await r.interrupt();
      r.cleanup();
    }
    const pending = r.closed ? [] : r.drain();
    const i = this.runners.indexOf(r);
    r.detached = true;
    if (i >= 0) this.runners.splice(i, 1);
    for (const item of pending) this.deliver(i, item);
    this.checkFlow();
  }

  /** Tear down: stop every toxic loop and drop everything in flight. */
  kill(): void {
    if (this.dead) return;
    this.dead = true;
    this.source.off('data', this.onData);
    this.source.off('end', this.onSourceEnd);
    this.source.off('close', this.onSourceEnd);
    this.dest.off('drain', this.onDrain);
    this.dest.off('close', this.onDestClose);
    for (const r of this.runners) r.wake({ kind: 'interrupt' }, false);
    for (const fn of [...this.deathListeners]) fn();
    this.deathListeners.clear();
  }
}

class Connection {
  readonly linger0 = new Set<net.Socket>();
  up: Link | null = null;
  down: Link | null = null;

  constructor(
    readonly proxy: Proxy,
    readonly client: net.Socket,
  ) {
    client.once('close', () => this.forgetIfClosed());
  }

  upstream: net.Socket | null = null;

  /** The upstream socket being dialled/used; tracked so stop() can cut it. */
  setUpstream(sock: net.Socket): void {
    this.upstream = sock;
    sock.once('close', () => this.forgetIfClosed());
  }

  /** Stop tracking only once both sockets are really closed (a graceful end may wait on the peer). */
  private forgetIfClosed(): void {
    if (this.client.destroyed && (!this.upstream || this.upstream.destroyed)) this.proxy.connections.delete(this);
  }

  links(): Link[] {
    return [this.up, this.down].filter((l): l is Link => l !== null);
  }

  link(direction: Direction): Link | null {
    return direction === 'upstream' ? this.up : this.down;
  }

  start(upstream: net.Socket, chain: Record<Direction, Toxic[]>): void {
    this.up = new Link(this, 'upstream', this.client, upstream);
    this.down = new Link(this, 'downstream', upstream, this.client);
    this.up.start(chain.upstream);
    this.down.start(chain.downstream);
  }

  /** A link wrote its last byte: close its destination, which ends the other direction too. */
  linkEnded(link: Link): void {
    closeSocket(link.dest, this.linger0.has(link.dest));
    const other = link === this.up ? this.down : this.up;
    if (other && !other.ended) other.endSource();
    if (this.links().every((l) => l.ended)) this.finish();
  }

  private finish(): void {
    for (const l of this.links()) l.kill();
    this.forgetIfClosed();
  }

  /** Cut the connection now (proxy disabled, deleted or server closed). */
  destroy(): void {
    for (const l of this.links()) l.kill();
    for (const s of [this.client, this.upstream]) {
      if (!s || s.destroyed) continue;
      if (this.linger0.has(s)) s.resetAndDestroy();
      else s.destroy();
    }
    this.proxy.connections.delete(this);
  }
}

// ---------------------------------------------------------------------------------------------
// Proxy

export interface ProxyJson {
  name: string;
  listen: string;
  upstream: string;
  enabled: boolean;
  toxics: ToxicJson[];
}

export interface ToxicInput {
  name?: string;
  type?: string;
  stream?: string;
  toxicity?: number;
  /** Raw attribute values, checked against the toxic's definition. */
  attributes?: Record<string, unknown>;
}

/** Go's json.Decoder lookup: exact key first, else a case-insensitive match. */
export function field(obj: Record<string, unknown>, key: string): unknown {
  if (Object.prototype.hasOwnProperty.call(obj, key)) return obj[key];
  const lower = key.toLowerCase();
  for (const k of Object.keys(obj)) if (k.toLowerCase() === lower) return obj[k];
  return undefined;
}

export function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // string | number | object
}

/** Decode `raw` attributes over `base`, as Go's json.Unmarshal into the toxic's struct would. */
function decodeAttributes(def: ToxicDefinition, base: Attributes, raw: unknown): Attributes {
  const out: Attributes = { ...base };
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw Errors.badRequestBody(`json: cannot unmarshal ${jsonKind(raw)} into Go struct field .attributes of type toxics.${def.type}`);
  }
  const obj = raw as Record<string, unknown>;
  for (const key of Object.keys(def.defaults)) {
    const v = field(obj, key);
    if (v === undefined || v === null) continue;
    const goType = (def.goTypes as Record<string, string> | undefined)?.[key] ?? 'int64';
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      const what = typeof v === 'number' ? `number ${v}` : jsonKind(v);
      throw Errors.badRequestBody(`json: cannot unmarshal ${what} into Go struct field .attributes.${key} of type ${goType}`);
    }
    out[key] = v;
  }
  return out;
}

function validateAttributes(def: ToxicDefinition, attrs: Attributes): void {
  const msg = def.validate?.(attrs);
  if (msg) throw Errors.badRequestBody(msg);
}

function parseDirection(stream: string): Direction | undefined {
  const s = stream.toLowerCase();
  return s === 'upstream' || s === 'downstream' ? s : undefined;
}

export class Proxy {
  enabled = false;
  readonly connections = new Set<Connection>();
  private readonly chain: Record<Direction, Toxic[]> = { upstream: [], downstream: [] };
  private server: net.Server | null = null;
  private readonly lock = new Mutex();

  constructor(
    readonly name: string,
    public listen: string,
    public upstream: string,
  ) {}

  toJSON(): ProxyJson {
    return {
      name: this.name,
      listen: this.listen,
      upstream: this.upstream,
      enabled: this.enabled,
      toxics: this.toxics().map((t) => t.toJSON()),
    };
  }

  // --- lifecycle ---

  /** Start listening; throws ProxyAlreadyStarted if already enabled. */
  start(): Promise<void> {
    return this.lock.run(() => this.startLocked());
  }

  stop(): Promise<void> {
    return this.lock.run(() => this.stopLocked());
  }

  /** Toxiproxy's Proxy.Update: a new listen/upstream restarts the proxy (dropping connections). */
  update(input: { listen: string; upstream: string; enabled: boolean }): Promise<void> {
    return this.lock.run(async () => {
      if (input.listen !== this.listen || input.upstream !== this.upstream) {
        await this.stopLocked();
        this.listen = input.listen;
        this.upstream = input.upstream;
      }
      if (input.enabled !== this.enabled) {
        if (input.enabled) await this.startLocked();
        else await this.stopLocked();
      }
    });
  }

  /** Start unless already running (POST /reset). */
  async ensureStarted(): Promise<void> {
    try {
      await this.start();
    } catch (err) {
      if (!(err instanceof ProxyAlreadyStarted)) throw err;
    }
  }

  private async startLocked(): Promise<void> {
    if (this.enabled) throw new ProxyAlreadyStarted('Proxy already started');
    const listen = this.listen;
    let host: string;
    let port: number;
    try {
      const hp = splitHostPort(listen);
      port = parsePort(listen, hp.port);
      host = await resolveListenHost(hp.host);
    } catch (err) {
      throw new Error(`listen tcp ${listen}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (sock) => this.accept(sock));
    const wildcard = WILDCARDS.has(host);
    const bind = (h: string): Promise<void> =>
      new Promise<void>((resolve, reject) => {
        const onError = (err: Error): void => reject(err);
        server.once('error', onError);
        server.listen({ host: h, port, exclusive: true }, () => {
          server.off('error', onError);
          resolve();
        });
      });
    try {
      try {
        await bind(wildcard ? '::' : host);
      } catch (err) {
        if (!wildcard || (err as NodeJS.ErrnoException).code !== 'EAFNOSUPPORT') throw err;
        await bind('0.0.0.0');
      }
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const reason = e.code && BIND_ERRORS[e.code] ? `bind: ${BIND_ERRORS[e.code]}` : e.message;
      throw new Error(`listen tcp ${listen}: ${reason}`);
    }
    server.on('error', () => undefined);
    const addr = server.address() as net.AddressInfo;
    this.server = server;
    this.listen = joinHostPort(addr.address, addr.port); // Go: listener.Addr().String()
    this.enabled = true;
  }

  private async stopLocked(): Promise<void> {
    if (!this.enabled) return;
    this.enabled = false;
    const server = this.server;
    this.server = null;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    for (const c of [...this.connections]) c.destroy();
    await closed;
  }

  private accept(client: net.Socket): void {
    client.setNoDelay(true); // Go enables TCP_NODELAY on every TCP conn
    client.on('error', () => undefined);
    const conn = new Connection(this, client);
    this.connections.add(conn);
    const { host, port } = (() => {
      try {
        const hp = splitHostPort(this.upstream);
        return { host: hp.host || 'localhost', port: parsePort(this.upstream, hp.port) };
      } catch {
        return { host: '', port: -1 };
      }
    })();
    if (port < 0) {
      conn.destroy();
      return;
    }
    const upstream = net.connect({ host, port, allowHalfOpen: true, noDelay: true });
    upstream.on('error', () => undefined);
    conn.setUpstream(upstream);
    const onFail = (): void => conn.destroy(); // Go: client.Close() when the dial fails
    upstream.once('error', onFail);
    upstream.once('close', onFail);
    upstream.once('connect', () => {
      upstream.off('error', onFail);
      upstream.off('close', onFail);
      if (!this.connections.has(conn) || client.destroyed) {
        upstream.destroy();
        return;
      }
      conn.start(upstream, { upstream: [...this.chain.upstream], downstream: [...this.chain.downstream] });
      client.resume();
    });
  }

  // --- toxics (Toxiproxy's ToxicCollection) ---

  toxics(): Toxic[] {
    return [...this.chain.upstream, ...this.chain.downstream];
  }

  getToxic(name: string): Toxic | undefined {
    return this.toxics().find((t) => t.name === name);
  }

  private links(direction: Direction): Link[] {
    const out: Link[] = [];
    for (const c of this.connections) {
      const l = c.link(direction);
      if (l) out.push(l);
    }
    return out;
  }

  addToxic(input: ToxicInput): Promise<Toxic> {
    return this.lock.run(() => {
      const stream = input.stream ?? 'downstream';
      const direction = parseDirection(stream);
      if (!direction) throw Errors.invalidStream();
      const type = input.type ?? '';
      const name = input.name ? input.name : `${type}_${stream}`;
      const def = getToxicDefinition(type);
      if (!def) throw Errors.invalidToxicType();
      if (this.getToxic(name)) throw Errors.toxicAlreadyExists();
      const attributes = decodeAttributes(def, { ...def.defaults }, input.attributes);
      validateAttributes(def, attributes);
      const toxic = new Toxic(name, type, stream, direction, input.toxicity ?? 1.0, attributes, def);
      this.chain[direction].push(toxic);
      for (const l of this.links(direction)) l.addToxic(toxic);
      return toxic;
    });
  }

  updateToxic(name: string, input: { toxicity?: number; attributes?: unknown }): Promise<Toxic> {
    return this.lock.run(async () => {
      const old = this.getToxic(name);
      if (!old) throw Errors.toxicNotFound();
      const attributes = decodeAttributes(old.def, old.attributes, input.attributes);
      validateAttributes(old.def, attributes);
      const toxic = new Toxic(old.name, old.type, old.stream, old.direction, input.toxicity ?? old.toxicity, attributes, old.def);
      const list = this.chain[toxic.direction];
      list[list.indexOf(old)] = toxic;
      await Promise.all(this.links(toxic.direction).map((l) => l.updateToxic(toxic)));
      return toxic;
    });
  }

  removeToxic(name: string): Promise<void> {
    return this.lock.run(async () => {
      const toxic = this.getToxic(name);
      if (!toxic) throw Errors.toxicNotFound();
      await this.removeToxicLocked(toxic);
    });
  }

  resetToxics(): Promise<void> {
    return this.lock.run(async () => {
      for (const t of this.toxics()) await this.removeToxicLocked(t);
    });
  }

  private async removeToxicLocked(toxic: Toxic): Promise<void> {
    const list = this.chain[toxic.direction];
    list.splice(list.indexOf(toxic), 1);
    await Promise.all(this.links(toxic.direction).map((l) => l.removeToxic(toxic.name)));
  }

  /** Whether populate must replace this proxy (Toxiproxy's Proxy.Differs). */
  async differs(listen: string, upstream: string): Promise<boolean> {
    let resolved: string;
    try {
      resolved = await resolvedListenString(listen);
    } catch {
      return true;
    }
    return this.listen !== resolved || this.upstream !== upstream;
  }
}

// ---------------------------------------------------------------------------------------------
// ProxyCollection

export interface ProxyInput {
  name: string;
  listen: string;
  upstream: string;
  enabled: boolean;
}

export class ProxyCollection {
  private readonly proxies = new Map<string, Proxy>();
  private readonly lock = new Mutex();

  all(): Proxy[] {
    return [...this.proxies.values()];
  }

  get(name: string): Proxy {
    const p = this.proxies.get(name);
    if (!p) throw Errors.proxyNotFound();
    return p;
  }

  add(input: ProxyInput): Promise<Proxy> {
    return this.lock.run(async () => {
      if (this.proxies.has(input.name)) throw Errors.proxyAlreadyExists();
      const proxy = new Proxy(input.name, input.listen, input.upstream);
      if (input.enabled) await proxy.start();
      this.proxies.set(proxy.name, proxy);
      return proxy;
    });
  }

  /** Keep an existing proxy whose listen/upstream match, else replace it (stopping the old one). */
  addOrReplace(input: ProxyInput): Promise<Proxy> {
    return this.lock.run(async () => {
      const existing = this.proxies.get(input.name);
      if (existing) {
        if (!(await existing.differs(input.listen, input.upstream))) return existing;
        await existing.stop();
      }
      const proxy = new Proxy(input.name, input.listen, input.upstream);
      if (input.enabled) await proxy.start();
      this.proxies.set(proxy.name, proxy);
      return proxy;
    });
  }

  remove(name: string): Promise<void> {
    return this.lock.run(async () => {
      const p = this.get(name);
      await p.stop();
      this.proxies.delete(name);
    });
  }

  clear(): Promise<void> {
    return this.lock.run(async () => {
      for (const p of this.proxies.values()) await p.stop();
      this.proxies.clear();
    });
  }
}
