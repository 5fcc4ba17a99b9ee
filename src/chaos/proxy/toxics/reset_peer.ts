// reset_peer: on the first data (or end of input) in this direction, waits `timeout` ms then
// closes the connection with a TCP RST ("connection reset by peer"); the data is dropped
// (Toxiproxy's ResetToxic). As in Toxiproxy, the RST (SO_LINGER 0) is only armed on connections
// that were opened while the toxic was present; on older connections the close is a plain FIN.
import { registerToxic, type ToxicDefinition } from './toxic.ts';

interface ResetPeerAttributes {
  [k: string]: number;
  timeout: number;
}

const resetPeer: ToxicDefinition<ResetPeerAttributes> = {
  type: 'reset_peer',
  defaults: { timeout: 0 },
  resetOnClose: true,
  create(attrs) {
    return {
      async pipe(stub) {
        const ev = await stub.next();
        if (ev.kind === 'interrupt') return;
        await stub.wait(attrs.timeout); // Go's <-time.After(timeout) ignores interrupts
        stub.close();
      },
    };
  },
};

registerToxic(resetPeer);
