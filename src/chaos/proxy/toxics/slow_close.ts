// slow_close: passes data through but delays closing the connection by `delay` ms once the
// input ends (Toxiproxy's SlowCloseToxic).
import { registerToxic, type ToxicDefinition } from './toxic.ts';

interface SlowCloseAttributes {
  [k: string]: number;
  delay: number;
}

const slowClose: ToxicDefinition<SlowCloseAttributes> = {
  type: 'slow_close',
  defaults: { delay: 0 },
  create(attrs) {
    return {
      async pipe(stub) {
        for (;;) {
          const ev = await stub.next();
          if (ev.kind === 'interrupt') return;
          if (ev.kind === 'eof') {
            if (await stub.sleep(attrs.delay)) stub.close();
            return;
          }
          if (ev.kind === 'chunk') stub.send(ev.chunk);
        }
      },
    };
  },
};

registerToxic(slowClose);
