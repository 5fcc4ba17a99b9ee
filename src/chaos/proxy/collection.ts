// The named set of proxies (Toxiproxy's proxy_collection.go).

import { Errors } from './errors.ts';
import { Mutex } from './mutex.ts';
import { Proxy } from './proxy.ts';

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
