// timeout: stops all data (it is dropped) and closes the connection once `timeout` ms pass with
// no data arriving in this direction; `timeout: 0` never closes. Removing the toxic closes every
// connection in its direction, the ones it stalled and the ones its toxicity roll spared
// (Toxiproxy's TimeoutToxic + Cleanup, which link.RemoveToxic runs on every link).
import { registerToxic, type ToxicDefinition } from './toxic.ts';

interface TimeoutAttributes {
  [k: string]: number;
  timeout: number;
}

const timeout: ToxicDefinition<TimeoutAttributes> = {
  type: 'timeout',
  defaults: { timeout: 0 },
  create(attrs) {
    return {
      async pipe(stub) {
        // Go re-arms time.After on every loop turn, so each chunk received restarts the clock.
        const ms = attrs.timeout > 0 ? attrs.timeout : undefined;
        for (;;) {
          const ev = await stub.next(ms);
          if (ev.kind === 'interrupt') return;
          if (ev.kind === 'timeout' || ev.kind === 'eof') {
            stub.close();
            return;
          }
          // chunk: drop the data on the ground
        }
      },
      cleanup(stub) {
        stub.close();
      },
    };
  },
};

registerToxic(timeout);
