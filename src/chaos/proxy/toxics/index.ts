// The toxics: importing this module registers every one of them (each file registers itself by
// its API name, as Toxiproxy's toxics do in their `init`); the proxy looks them up here by the
// `type` an API request names. A new toxic is a new file calling `registerToxic`, imported below.

import './latency.ts';
import './timeout.ts';
import './reset_peer.ts';
import './bandwidth.ts';
import './slow_close.ts';
import './slicer.ts';
import './limit_data.ts';

export { getToxicDefinition, noopStage, registerToxic } from './toxic.ts';
export type { Attributes, Chunk, StubEvent, ToxicDefinition, ToxicStage, ToxicStub } from './toxic.ts';
