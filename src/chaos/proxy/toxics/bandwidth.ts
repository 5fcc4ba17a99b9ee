// bandwidth: limits throughput to `rate` KB/s (1 KB = 1000 bytes); chunks bigger than 100 ms
// worth of data are split and sent every 100 ms (Toxiproxy's BandwidthToxic). A rate <= 0
// stalls the data until the toxic is updated or removed, as the Go loop does.
import { performance } from 'node:perf_hooks';
import { registerToxic, type ToxicDefinition } from './toxic.ts';

interface BandwidthAttributes {
  [k: string]: number;
  rate: number;
}

const bandwidth: ToxicDefinition<BandwidthAttributes> = {
  type: 'bandwidth',
  defaults: { rate: 0 },
  create(attrs) {
    const rate = attrs.rate;
    return {
      async pipe(stub) {
        let sleep = 0; // ms owed, carried across chunks to correct timer drift
        for (;;) {
          const ev = await stub.next();
          if (ev.kind === 'interrupt') return;
          if (ev.kind === 'eof') {
            stub.close();
            return;
          }
          if (ev.kind !== 'chunk') continue;
          const p = ev.chunk;
          if (rate <= 0) {
            await stub.sleep(Infinity); // held until interrupted; then flushed, never dropped
            stub.send(p);
            return;
          }
          sleep += p.data.length / rate; // bytes / (KB/s) = ms
          const slice = rate * 100; // bytes per 100 ms
          while (p.data.length > slice) {
            if (!(await stub.sleep(100))) {
              stub.send(p);
              return;
            }
            stub.send({ data: p.data.subarray(0, slice), ts: p.ts });
            p.data = p.data.subarray(slice);
            sleep -= 100;
          }
          const start = performance.now();
          if (await stub.sleep(sleep)) {
            sleep -= performance.now() - start;
            stub.send(p);
          } else {
            stub.send(p);
            return;
          }
        }
      },
    };
  },
};

registerToxic(bandwidth);
