// One client connection through a proxy: its upstream socket and its two links. Like Toxiproxy
// there is no TCP half-close: when one direction ends, the destination socket is closed and the
// other direction ends too.

import type net from 'node:net';
import { Link, type LinkOwner } from './link.ts';
import type { Direction, Toxic } from './toxic.ts';

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

export class Connection implements LinkOwner {
  readonly linger0 = new Set<net.Socket>();
  up: Link | null = null;
  down: Link | null = null;

  constructor(
    /** The proxy's live connections: this one removes itself once closed. */
    private readonly connections: Set<Connection>,
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
    if (this.client.destroyed && (!this.upstream || this.upstream.destroyed)) this.connections.delete(this);
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
    this.connections.delete(this);
  }
}
