// latency: delays every chunk by `latency` ± `jitter` ms, measured from when the chunk was read
// (Toxiproxy's LatencyToxic; chained latency toxics accumulate through the chunk timestamp).
import { performance } from 'node:perf_hooks';
import { registerToxic, type ToxicDefinition } from './toxic.ts';

interface LatencyAttributes {
  [k: string]: number;
  latency: number;
  jitter: number;
}

const latency: ToxicDefinition<LatencyAttributes> = {
  type: 'latency',
  defaults: { latency: 0, jitter: 0 },
  create(attrs) {
    const delay = (): number => {
      let d = attrs.latency;
      // Go: rand.Int63n(jitter*2) - jitter, i.e. an integer in [-jitter, jitter).
      if (attrs.jitter > 0) d += Math.floor(Math.random() * attrs.jitter * 2) - attrs.jitter;
      return d;
    };
    return {
      async pipe(stub) {
        for (;;) {
          const ev = await stub.next();
          if (ev.kind === 'interrupt') return;
          if (ev.kind === 'eof') {
            stub.close();
            return;
          }
          if (ev.kind !== 'chunk') continue;
          const c = ev.chunk;
          const sleep = delay() - (performance.now() - c.ts);
          if (await stub.sleep(sleep)) {
            c.ts += sleep;
            stub.send(c);
          } else {
            stub.send(c); // interrupted: exit fast without the delay, never drop data
            return;
          }
        }
      },
    };
  },
};

registerToxic(latency);
