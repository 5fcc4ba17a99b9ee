// limit_data: passes through at most `bytes` bytes per link, then closes the connection
// (Toxiproxy's LimitDataToxic; the count is per-link state that survives toxic updates).
import { registerToxic, type ToxicDefinition } from './toxic.ts';

interface LimitDataAttributes {
  [k: string]: number;
  bytes: number;
}

interface LimitDataState {
  bytesTransmitted: number;
}

const limitData: ToxicDefinition<LimitDataAttributes> = {
  type: 'limit_data',
  defaults: { bytes: 0 },
  newState: (): LimitDataState => ({ bytesTransmitted: 0 }),
  create(attrs) {
    return {
      async pipe(stub) {
        const state = stub.state as LimitDataState;
        let remaining = attrs.bytes - state.bytesTransmitted;
        for (;;) {
          const ev = await stub.next();
          if (ev.kind === 'interrupt') return;
          if (ev.kind === 'eof') {
            stub.close();
            return;
          }
          if (ev.kind !== 'chunk') continue;
          if (remaining < 0) remaining = 0;
          let c = ev.chunk;
          if (remaining < c.data.length) c = { ts: c.ts, data: c.data.subarray(0, remaining) };
          if (c.data.length > 0) {
            stub.send(c);
            state.bytesTransmitted += c.data.length;
          }
          remaining = attrs.bytes - state.bytesTransmitted;
          if (remaining <= 0) {
            stub.close();
            return;
          }
        }
      },
    };
  },
};

registerToxic(limitData);
