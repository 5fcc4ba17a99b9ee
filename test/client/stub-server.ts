/**
 * Client tests' stub setup: loopback stub servers (port 0, ../engine/stub.ts) and client factories
 * aimed at them, each closed after the test that started it.
 */
import { afterEach } from 'vitest';
import { ClientFactory, type ClientFactoryOptions, type KeySecret } from '../../src/client/index.ts';
import { RunClock } from '../../src/engine/index.ts';
import { exchangeRecordSchema, type ExchangeRecord } from '../../src/history/index.ts';
import { startStub, type Stub, type StubHandler } from '../engine/stub.ts';

export type FactoryOptions = Partial<ClientFactoryOptions>;

/**
 * Call once at a test file's top level: registers the clean-up, and returns `stubbed` (a stub server
 * with this handler) and `factory` (a ClientFactory for `url` with presentation B, a fresh RunClock,
 * a 5 s time-out and `opts` over these; its records collected, and a client for the first key).
 */
export function stubServers(keys: KeySecret[]) {
  const stubs: Stub[] = [];
  const factories: ClientFactory[] = [];
  afterEach(async () => {
    await Promise.all(factories.splice(0).map((f) => f.close()));
    await Promise.all(stubs.splice(0).map((s) => s.close()));
  });
  return {
    async stubbed(handler: StubHandler): Promise<Stub> {
      const s = await startStub(handler);
      stubs.push(s);
      return s;
    },
    factory(url: string, opts: FactoryOptions = {}) {
      const records: ExchangeRecord[] = [];
      const f = new ClientFactory({ baseUrl: url, keys, presentation: 'B', clock: new RunClock(), sink: (r) => records.push(r), scenario: 'test', timeoutMs: 5_000, ...opts });
      factories.push(f);
      return { f, c: f.client(keys[0].handle), records };
    },
  };
}

/** Records must be valid history v1 after a JSON round trip, as the file holds them. */
export function roundTrip(r: ExchangeRecord): ExchangeRecord {
  return exchangeRecordSchema.parse(JSON.parse(JSON.stringify(r)));
}
