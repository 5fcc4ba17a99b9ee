// Embedded Toxiproxy-compatible proxy: HTTP API + TCP proxies + toxics. See docs/toxiproxy.md.
export { startToxiproxyServer, DEFAULT_API_PORT, TOXIPROXY_VERSION } from './server.ts';
export type { ToxiproxyServer, ToxiproxyServerOptions } from './server.ts';
export { Proxy } from './proxy.ts';
export type { ProxyJson } from './proxy.ts';
export { ProxyCollection } from './collection.ts';
export type { ProxyInput } from './collection.ts';
export { Toxic } from './toxic.ts';
export type { Direction, ToxicJson, ToxicInput } from './toxic.ts';
export { ApiError } from './errors.ts';
export { getToxicDefinition, registerToxic } from './toxics/index.ts';
export type { Chunk, StubEvent, ToxicStub, ToxicStage, ToxicDefinition, Attributes } from './toxics/index.ts';
