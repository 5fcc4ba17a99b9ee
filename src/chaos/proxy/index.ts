// Embedded Toxiproxy-compatible proxy: HTTP API + TCP proxies + toxics. See docs/toxiproxy.md.
export { startToxiproxyServer, DEFAULT_API_PORT, TOXIPROXY_VERSION } from './server.ts';
export type { ToxiproxyServer, ToxiproxyServerOptions } from './server.ts';
export { Proxy, ProxyCollection, Toxic, ApiError } from './proxy.ts';
export type { Direction, ProxyJson, ToxicJson, ProxyInput, ToxicInput } from './proxy.ts';
export { getToxicDefinition, registerToxic, toxicTypes } from './toxics/index.ts';
export type { Chunk, StubEvent, ToxicStub, ToxicStage, ToxicDefinition, Attributes } from './toxics/index.ts';
