// One TCP proxy (Toxiproxy's proxy.go): listens, dials the upstream for each client and starts a
// connection with the toxic chain of the moment.
//
//   client ──▶ [upstream link: toxic ▶ toxic ▶ …] ──▶ upstream server
//   client ◀── [downstream link: toxic ▶ toxic ▶ …] ◀── upstream server
//
// Each link runs one stage per toxic of its direction; a toxic's toxicity is rolled when its
// stage starts on a link (link start, toxic added to a live link, toxic updated), so it holds
// per connection, not per request. The pieces: connection.ts, link.ts, stub.ts (a toxic on a
// link), toxic-collection.ts, toxic.ts, and the toxics themselves in toxics/.

import net from 'node:net';
import { BIND_ERRORS, WILDCARDS, joinHostPort, parsePort, resolveListenHost, resolvedListenString, splitHostPort } from './address.ts';
import { Connection } from './connection.ts';
import type { Link } from './link.ts';
import { Mutex } from './mutex.ts';
import { ToxicCollection } from './toxic-collection.ts';
import type { Direction, Toxic, ToxicInput, ToxicJson } from './toxic.ts';

class ProxyAlreadyStarted extends Error {}

export interface ProxyJson {
  name: string;
  listen: string;
  upstream: string;
  enabled: boolean;
  toxics: ToxicJson[];
}

export class Proxy {
  enabled = false;
  readonly connections = new Set<Connection>();
  private server: net.Server | null = null;
  private readonly lock = new Mutex();
  private readonly chain = new ToxicCollection(this.lock, (direction) => this.links(direction));

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
    const conn = new Connection(this.connections, client);
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
      conn.start(upstream, this.chain.snapshot());
      client.resume();
    });
  }

  // --- toxics (toxic-collection.ts) ---

  toxics(): Toxic[] {
    return this.chain.toxics();
  }

  getToxic(name: string): Toxic | undefined {
    return this.chain.getToxic(name);
  }

  addToxic(input: ToxicInput): Promise<Toxic> {
    return this.chain.addToxic(input);
  }

  updateToxic(name: string, input: { toxicity?: number; attributes?: unknown }): Promise<Toxic> {
    return this.chain.updateToxic(name, input);
  }

  removeToxic(name: string): Promise<void> {
    return this.chain.removeToxic(name);
  }

  resetToxics(): Promise<void> {
    return this.chain.resetToxics();
  }

  private links(direction: Direction): Link[] {
    const out: Link[] = [];
    for (const c of this.connections) {
      const l = c.link(direction);
      if (l) out.push(l);
    }
    return out;
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
