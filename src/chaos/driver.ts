/**
 * The Toxiproxy API as paystorm uses it, through toxiproxy-node-client. Its only job is
 * to turn the client's bare "status code N" failures into messages that say what failed,
 * on which server, and what to do.
 */
import { Toxiproxy, type ICreateToxicBody } from 'toxiproxy-node-client';
import type { FaultStream } from '../spec/index.ts';

export interface ToxicState {
  name: string;
  type: string;
  stream: FaultStream;
  toxicity: number;
  attributes: Record<string, unknown>;
}

export interface ProxyState {
  name: string;
  listen: string;
  upstream: string;
  enabled: boolean;
  toxics: ToxicState[];
}

export class ToxiproxyApiError extends Error {
  constructor(
    message: string,
    /** HTTP status of the API answer; 0 when the server could not be reached. */
    readonly status: number,
  ) {
    super(message);
    this.name = 'ToxiproxyApiError';
  }
}

function statusOf(err: unknown): number {
  const m = /status code (\d{3})/.exec(err instanceof Error ? err.message : String(err));
  return m ? Number(m[1]) : 0;
}

export class ToxiproxyDriver {
  readonly client: Toxiproxy;

  constructor(readonly url: string) {
    this.client = new Toxiproxy(url.replace(/\/+$/, ''));
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const status = statusOf(err);
      const why =
        status === 0
          ? `cannot reach Toxiproxy at ${this.url} (${(err as Error).message}). Start it (toxiproxy-server -host=0.0.0.0, or docker compose up toxiproxy) or pass the right --toxiproxy URL.`
          : `Toxiproxy at ${this.url} answered ${status}.`;
      throw new ToxiproxyApiError(`${what}: ${why}`, status);
    }
  }

  async listProxies(): Promise<ProxyState[]> {
    // The client's getAll() drops the toxics, so read the listing through its HTTP client.
    const res = await this.call('listing proxies', () => this.client.getApi().get<Record<string, ProxyState>>(`${this.client.host}/proxies`));
    return Object.values(res.data ?? {}).map((p) => ({ ...p, toxics: p.toxics ?? [] }));
  }

  async createProxy(spec: { name: string; listen: string; upstream: string }): Promise<ProxyState> {
    const p = await this.call(`creating proxy "${spec.name}" (${spec.listen} -> ${spec.upstream})`, () => this.client.createProxy({ ...spec, enabled: true }));
    return { name: p.name, listen: p.listen, upstream: p.upstream, enabled: p.enabled, toxics: [] };
  }

  async deleteProxy(name: string): Promise<void> {
    await this.call(`deleting proxy "${name}"`, async () => (await this.client.get(name)).remove());
  }

  async setEnabled(name: string, enabled: boolean): Promise<void> {
    await this.call(`${enabled ? 'enabling' : 'disabling'} proxy "${name}"`, async () => {
      const p = await this.client.get(name);
      await p.update({ enabled, listen: p.listen, upstream: p.upstream });
    });
  }

  async addToxic(proxy: string, toxic: ToxicState): Promise<void> {
    await this.call(`adding ${toxic.type} toxic "${toxic.name}" to proxy "${proxy}"`, async () => {
      const p = await this.client.get(proxy);
      await p.addToxic(toxic as ICreateToxicBody<unknown>);
    });
  }

  async removeToxic(proxy: string, name: string): Promise<void> {
    const path = `${this.client.host}/proxies/${encodeURIComponent(proxy)}/toxics/${encodeURIComponent(name)}`;
    await this.call(`removing toxic "${name}" from proxy "${proxy}"`, () => this.client.getApi().delete(path));
  }
}
