// Toxiproxy-compatible HTTP API (Toxiproxy's api.go) over node:http.
//
// Routes, status codes and JSON shapes follow Shopify/toxiproxy v2: proxies are
// `{name, listen, upstream, enabled, toxics}`, toxics `{attributes, name, type, stream, toxicity}`,
// errors `{error, status}`.

import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { ProxyCollection, type ProxyInput } from './collection.ts';
import { ApiError, Errors, toApiError } from './errors.ts';
import { field, jsonKind } from './json.ts';
import type { Proxy } from './proxy.ts';
import type { ToxicInput } from './toxic.ts';

export const DEFAULT_API_PORT = 8474;
/** Toxiproxy release whose API this server reproduces; reported by GET /version. */
export const TOXIPROXY_VERSION = '2.12.0';

export interface ToxiproxyServerOptions {
  /** Interface for the HTTP API (default 127.0.0.1). */
  host?: string;
  /** API port (default 8474; 0 = any free port). */
  port?: number;
  /** Version string reported by GET /version. */
  version?: string;
}

export interface ToxiproxyServer {
  /** Base URL of the API, e.g. http://127.0.0.1:8474 (what toxiproxy-node-client takes). */
  url: string;
  host: string;
  port: number;
  /** The proxies, for in-process use (the same state the HTTP API drives). */
  proxies: ProxyCollection;
  /** Stop every proxy (listeners and connections) and the API server. */
  close(): Promise<void>;
}

const MAX_BODY = 10 << 20;

// ---------------------------------------------------------------------------------------------
// Responses

/** JSON as Go's encoding/json writes it (HTML-sensitive characters escaped). */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  const body = goJson(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendNoContent(res: http.ServerResponse): void {
  res.writeHead(204);
  res.end();
}

/** Go's http.Error(w, json, status): the JSON body is sent as text/plain with a trailing newline. */
function sendError(res: http.ServerResponse, err: unknown): void {
  const e = toApiError(err);
  const body = `${goJson(e)}\n`;
  res.writeHead(e.status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

// ---------------------------------------------------------------------------------------------
// Request bodies, decoded the way Go's json.Decoder fills a struct

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (d: Buffer) => {
      size += d.length;
      if (size > MAX_BODY) {
        reject(Errors.badRequestBody('http: request body too large'));
        req.destroy();
        return;
      }
      parts.push(d);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  if (text.trim() === '') throw Errors.badRequestBody('EOF');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw Errors.badRequestBody((err as Error).message);
  }
}

function unmarshalError(v: unknown, where: string, goType: string): ApiError {
  return Errors.badRequestBody(`json: cannot unmarshal ${jsonKind(v)} into ${where} of type ${goType}`);
}

function asObject(v: unknown, goType: string): Record<string, unknown> | null {
  if (v === null) return null; // JSON null leaves the target untouched
  if (typeof v !== 'object' || Array.isArray(v)) throw unmarshalError(v, 'Go value', goType);
  return v as Record<string, unknown>;
}

function str(obj: Record<string, unknown>, key: string, struct: string, fallback: string): string {
  const v = field(obj, key);
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string') throw unmarshalError(v, `Go struct field ${struct}.${key}`, 'string');
  return v;
}

function bool(obj: Record<string, unknown>, key: string, struct: string, fallback: boolean): boolean {
  const v = field(obj, key);
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw unmarshalError(v, `Go struct field ${struct}.${key}`, 'bool');
  return v;
}

function num(obj: Record<string, unknown>, key: string, struct: string, fallback: number): number {
  const v = field(obj, key);
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number') throw unmarshalError(v, `Go struct field ${struct}.${key}`, 'float32');
  return v;
}

function decodeProxy(v: unknown, base: ProxyInput, goType: string): ProxyInput {
  const obj = asObject(v, goType);
  if (!obj) return { ...base };
  return {
    name: str(obj, 'name', 'Proxy', base.name),
    listen: str(obj, 'listen', 'Proxy', base.listen),
    upstream: str(obj, 'upstream', 'Proxy', base.upstream),
    enabled: bool(obj, 'enabled', 'Proxy', base.enabled),
  };
}

function decodeToxic(v: unknown): ToxicInput {
  const obj = asObject(v, 'toxics.ToxicWrapper');
  if (!obj) return {};
  const attributes = field(obj, 'attributes');
  if (attributes !== undefined && attributes !== null && (typeof attributes !== 'object' || Array.isArray(attributes))) {
    throw unmarshalError(attributes, 'Go struct field ToxicWrapper.attributes', 'toxics.NoopToxic');
  }
  const out: ToxicInput = {
    name: str(obj, 'name', 'ToxicWrapper', ''),
    type: str(obj, 'type', 'ToxicWrapper', ''),
    stream: str(obj, 'stream', 'ToxicWrapper', 'downstream'),
    toxicity: num(obj, 'toxicity', 'ToxicWrapper', 1.0),
  };
  if (attributes !== undefined && attributes !== null) out.attributes = attributes as Record<string, unknown>;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Handlers

type Params = Record<string, string>;
type Handler = (ctx: { req: http.IncomingMessage; res: http.ServerResponse; params: Params }) => Promise<void>;

function routes(collection: ProxyCollection, version: string): Array<{ pattern: string[]; methods: string[]; handler: Handler }> {
  const proxyCreate: Handler = async ({ req, res }) => {
    const input = decodeProxy(parseJson(await readBody(req)), { name: '', listen: '', upstream: '', enabled: true }, 'toxiproxy.Proxy');
    if (input.name.length < 1) throw Errors.missingField('name');
    if (input.upstream.length < 1) throw Errors.missingField('upstream');
    const proxy = await collection.add(input);
    sendJson(res, 201, proxy);
  };

  const populate: Handler = async ({ req, res }) => {
    const done: Proxy[] = [];
    let apiErr: ApiError | null = null;
    try {
      const v = parseJson(await readBody(req));
      if (v !== null && !Array.isArray(v)) throw unmarshalError(v, 'Go value', '[]toxiproxy.Proxy');
      const list = (v ?? []) as unknown[];
      // Check every entry before creating any proxy.
      const inputs = list.map((item, i) => {
        const p = decodeProxy(item, { name: '', listen: '', upstream: '', enabled: true }, 'toxiproxy.Proxy');
        if (p.name.length < 1) throw Errors.missingField(`name at proxy ${i + 1}`);
        if (p.upstream.length < 1) throw Errors.missingField(`upstream at proxy ${i + 1}`);
        return p;
      });
      for (const input of inputs) done.push(await collection.addOrReplace(input));
    } catch (err) {
      apiErr = toApiError(err);
    }
    const proxies = done.length > 0 ? done : null; // Go marshals an empty result slice as null
    if (apiErr) sendJson(res, apiErr.status, { error: apiErr.message, status: apiErr.status, proxies });
    else sendJson(res, 201, { proxies });
  };

  const toxicCreate: Handler = async ({ req, res, params }) => {
    const proxy = collection.get(params.proxy);
    const toxic = await proxy.addToxic(decodeToxic(parseJson(await readBody(req))));
    sendJson(res, 200, toxic);
  };

  const toxicUpdate: Handler = async ({ req, res, params }) => {
    const proxy = collection.get(params.proxy);
    const old = proxy.getToxic(params.toxic);
    if (!old) throw Errors.toxicNotFound();
    const obj = asObject(parseJson(await readBody(req)), 'struct { Attributes interface {}; Toxicity float32 }') ?? {};
    const toxic = await proxy.updateToxic(params.toxic, {
      toxicity: num(obj, 'toxicity', '', old.toxicity),
      attributes: field(obj, 'attributes'),
    });
    sendJson(res, 200, toxic);
  };

  return [
    {
      pattern: ['reset'],
      methods: ['POST'],
      handler: async ({ res }) => {
        for (const proxy of collection.all()) {
          await proxy.ensureStarted();
          await proxy.resetToxics();
        }
        sendNoContent(res);
      },
    },
    {
      pattern: ['proxies'],
      methods: ['GET'],
      handler: async ({ res }) => {
        const out: Record<string, Proxy> = {};
        for (const p of collection.all().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) out[p.name] = p;
        sendJson(res, 200, out);
      },
    },
    { pattern: ['proxies'], methods: ['POST'], handler: proxyCreate },
    { pattern: ['populate'], methods: ['POST'], handler: populate },
    {
      pattern: ['proxies', ':proxy'],
      methods: ['GET'],
      handler: async ({ res, params }) => sendJson(res, 200, collection.get(params.proxy)),
    },
    {
      pattern: ['proxies', ':proxy'],
      methods: ['POST', 'PATCH'],
      handler: async ({ req, res, params }) => {
        const proxy = collection.get(params.proxy);
        const input = decodeProxy(
          parseJson(await readBody(req)),
          { name: proxy.name, listen: proxy.listen, upstream: proxy.upstream, enabled: proxy.enabled },
          'toxiproxy.Proxy',
        );
        await proxy.update(input);
        sendJson(res, 200, proxy);
      },
    },
    {
      pattern: ['proxies', ':proxy'],
      methods: ['DELETE'],
      handler: async ({ res, params }) => {
        await collection.remove(params.proxy);
        sendNoContent(res);
      },
    },
    {
      pattern: ['proxies', ':proxy', 'toxics'],
      methods: ['GET'],
      handler: async ({ res, params }) => sendJson(res, 200, collection.get(params.proxy).toxics()),
    },
    { pattern: ['proxies', ':proxy', 'toxics'], methods: ['POST'], handler: toxicCreate },
    {
      pattern: ['proxies', ':proxy', 'toxics', ':toxic'],
      methods: ['GET'],
      handler: async ({ res, params }) => {
        const toxic = collection.get(params.proxy).getToxic(params.toxic);
        if (!toxic) throw Errors.toxicNotFound();
        sendJson(res, 200, toxic);
      },
    },
    { pattern: ['proxies', ':proxy', 'toxics', ':toxic'], methods: ['POST', 'PATCH'], handler: toxicUpdate },
    {
      pattern: ['proxies', ':proxy', 'toxics', ':toxic'],
      methods: ['DELETE'],
      handler: async ({ res, params }) => {
        await collection.get(params.proxy).removeToxic(params.toxic);
        sendNoContent(res);
      },
    },
    {
      pattern: ['version'],
      methods: ['GET'],
      handler: async ({ res }) => {
        const body = `{"version": "${version}"}\n`;
        res.writeHead(200, { 'Content-Type': 'application/json;charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      },
    },
  ];
}

function match(pattern: string[], segments: string[]): Params | null {
  if (pattern.length !== segments.length) return null;
  const params: Params = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith(':')) {
      if (segments[i] === '') return null;
      params[p.slice(1)] = segments[i];
    } else if (p !== segments[i]) {
      return null;
    }
  }
  return params;
}

function requestId(): string {
  const alphabet = '0123456789abcdefghijklmnopqrstuv'; // xid-style base32hex
  return [...randomBytes(20)].map((b) => alphabet[b & 31]).join('');
}

// ---------------------------------------------------------------------------------------------

/** Start the Toxiproxy-compatible API. Resolves once it listens. */
export async function startToxiproxyServer(options: ToxiproxyServerOptions = {}): Promise<ToxiproxyServer> {
  const host = options.host ?? '127.0.0.1';
  const collection = new ProxyCollection();
  const table = routes(collection, options.version ?? TOXIPROXY_VERSION);

  const server = http.createServer((req, res) => {
    const rawPath = (req.url ?? '/').split('?')[0];
    let segments: string[];
    try {
      segments = rawPath.replace(/^\//, '').split('/').map(decodeURIComponent);
    } catch {
      sendText(res, 400, '400 Bad Request\n');
      return;
    }
    const candidates = table.map((r) => ({ r, params: match(r.pattern, segments) })).filter((c) => c.params);
    if (candidates.length === 0) {
      sendText(res, 404, '404 page not found\n');
      return;
    }
    const hit = candidates.find((c) => c.r.methods.includes(req.method ?? ''));
    if (!hit) {
      res.writeHead(405);
      res.end();
      return;
    }
    res.setHeader('X-Toxiproxy-Request-Id', requestId());
    if ((req.headers['user-agent'] ?? '').startsWith('Mozilla/')) {
      sendText(res, 403, 'User agent not allowed\n');
      return;
    }
    hit.r.handler({ req, res, params: hit.params! }).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, err);
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: options.port ?? DEFAULT_API_PORT }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as import('node:net').AddressInfo;
  const urlHost = addr.address.includes(':') ? `[${addr.address}]` : addr.address;

  let closing: Promise<void> | null = null;
  return {
    url: `http://${urlHost}:${addr.port}`,
    host: addr.address,
    port: addr.port,
    proxies: collection,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await collection.clear();
        await stopped;
      })();
      return closing;
    },
  };
}
