/** paystorm's API client: one undici-based client for the whole API, every exchange recorded. */
export * from './api-client.ts';
export * from './transport.ts';
export * from './exchange.ts';
export * from './leaks.ts';
export * from './detect.ts';
export * from './keys.ts';
