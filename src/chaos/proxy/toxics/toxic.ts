// The interface every toxic implements, and the registry toxics add themselves to by their API name.
//
// Mirrors Toxiproxy's `toxics/toxic.go`: one toxic per file, each a `pipe` loop that reads chunks
// from its stub's input and writes (possibly delayed, split, truncated or dropped) chunks to its
// output, and each file registers its toxic (`registerToxic`, Go's `toxics.Register` in an
// `init`). The stub (implemented in ../stub.ts) provides the Go-`select`-like primitives: wait for
// input / interrupt / a timer.

/** A piece of data read from a socket, with the time (performance.now(), ms) it was read. */
export interface Chunk {
  data: Buffer;
  ts: number;
}

export type StubEvent =
  | { kind: 'chunk'; chunk: Chunk }
  | { kind: 'eof' }
  | { kind: 'interrupt' }
  | { kind: 'timeout' };

/** Per-link, per-toxic plumbing handed to `ToxicStage.pipe` (Toxiproxy's ToxicStub). */
export interface ToxicStub {
  /**
   * Next input event: a chunk, end of input (sticky: returned again on every later call), an
   * interrupt (the toxic is being updated/removed or the connection torn down: return soon), or,
   * when `timeoutMs` is given, a timeout if nothing arrived in that time.
   */
  next(timeoutMs?: number): Promise<StubEvent>;
  /** Wait `ms` milliseconds (Infinity: until interrupted). Resolves false if interrupted first. */
  sleep(ms: number): Promise<boolean>;
  /** Wait `ms` milliseconds ignoring interrupts (ends early only if the connection is torn down). */
  wait(ms: number): Promise<void>;
  /** Pass a chunk to the next toxic (or the destination socket). */
  send(chunk: Chunk): void;
  /** Close this link's output: the connection is closed once everything before it drains. */
  close(): void;
  readonly closed: boolean;
  /** Per-link state of stateful toxics (survives toxic updates), from `ToxicDefinition.newState`. */
  state: unknown;
}

/** One running instance of a toxic's behaviour (created per link, re-created on update). */
export interface ToxicStage {
  /** Runs until the input ends, the stub is closed, or an interrupt arrives. */
  pipe(stub: ToxicStub): Promise<void>;
  /** Called when the toxic is removed from a live link (Toxiproxy's CleanupToxic). */
  cleanup?(stub: ToxicStub): void;
}

export type Attributes = Record<string, number>;

export interface ToxicDefinition<A extends Attributes = Attributes> {
  /** Toxiproxy type name, e.g. `latency`. */
  readonly type: string;
  /** Attribute names and their defaults (Go zero values), in Toxiproxy's JSON field order. */
  readonly defaults: Readonly<A>;
  /** Go type of each attribute (all integers): `int64` or `int`; used in error messages. */
  readonly goTypes?: Partial<Record<keyof A, string>>;
  /** Returns an error message if the attributes are unusable, else undefined. */
  validate?(attrs: A): string | undefined;
  create(attrs: A): ToxicStage;
  /** Stateful toxics: fresh per-link state (kept across updates of the toxic). */
  newState?(): unknown;
  /** Links that start with this toxic present close their sockets with RST (SO_LINGER 0). */
  readonly resetOnClose?: boolean;
}

/** Pass-through toxic (Toxiproxy's NoopToxic); also what runs when the toxicity roll fails. */
export const noopStage: ToxicStage = {
  async pipe(stub) {
    for (;;) {
      const ev = await stub.next();
      if (ev.kind === 'interrupt') return;
      if (ev.kind === 'eof') {
        stub.close();
        return;
      }
      if (ev.kind === 'chunk') stub.send(ev.chunk);
    }
  },
};

/** Toxic definitions by API name (`latency`, `bandwidth`, ...), as the API's `type` names them. */
const registry = new Map<string, ToxicDefinition<any>>();

/** Adds a toxic under its API name (`def.type`); each toxic file calls it for itself. */
export function registerToxic(def: ToxicDefinition<any>): void {
  registry.set(def.type, def);
}

export function getToxicDefinition(type: string): ToxicDefinition | undefined {
  return registry.get(type);
}
