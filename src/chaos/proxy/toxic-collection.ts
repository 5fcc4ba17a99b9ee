// A proxy's toxics (Toxiproxy's toxic_collection.go): the chain of each direction, and the
// changes to it carried onto every live link of that direction.

import type { Link } from './link.ts';
import type { Mutex } from './mutex.ts';
import { getToxicDefinition } from './toxics/index.ts';
import { Errors } from './errors.ts';
import { Toxic, decodeAttributes, parseDirection, validateAttributes, type Direction, type ToxicInput } from './toxic.ts';

export class ToxicCollection {
  private readonly chain: Record<Direction, Toxic[]> = { upstream: [], downstream: [] };

  constructor(
    /** The proxy's lock: toxic changes and proxy start/stop never interleave. */
    private readonly lock: Mutex,
    /** The live links of one direction. */
    private readonly links: (direction: Direction) => Link[],
  ) {}

  /** Each direction's chain as it is now, for a new connection. */
  snapshot(): Record<Direction, Toxic[]> {
    return { upstream: [...this.chain.upstream], downstream: [...this.chain.downstream] };
  }

  toxics(): Toxic[] {
    return [...this.chain.upstream, ...this.chain.downstream];
  }

  getToxic(name: string): Toxic | undefined {
    return this.toxics().find((t) => t.name === name);
  }

  addToxic(input: ToxicInput): Promise<Toxic> {
    return this.lock.run(() => {
      const stream = input.stream ?? 'downstream';
      const direction = parseDirection(stream);
      if (!direction) throw Errors.invalidStream();
      const type = input.type ?? '';
      const name = input.name ? input.name : `${type}_${stream}`;
      const def = getToxicDefinition(type);
      if (!def) throw Errors.invalidToxicType();
      if (this.getToxic(name)) throw Errors.toxicAlreadyExists();
      const attributes = decodeAttributes(def, { ...def.defaults }, input.attributes);
      validateAttributes(def, attributes);
      const toxic = new Toxic(name, type, stream, direction, input.toxicity ?? 1.0, attributes, def);
      this.chain[direction].push(toxic);
      for (const l of this.links(direction)) l.addToxic(toxic);
      return toxic;
    });
  }

  updateToxic(name: string, input: { toxicity?: number; attributes?: unknown }): Promise<Toxic> {
    return this.lock.run(async () => {
      const old = this.getToxic(name);
      if (!old) throw Errors.toxicNotFound();
      const attributes = decodeAttributes(old.def, old.attributes, input.attributes);
      validateAttributes(old.def, attributes);
      const toxic = new Toxic(old.name, old.type, old.stream, old.direction, input.toxicity ?? old.toxicity, attributes, old.def);
      const list = this.chain[toxic.direction];
      list[list.indexOf(old)] = toxic;
      await Promise.all(this.links(toxic.direction).map((l) => l.updateToxic(toxic)));
      return toxic;
    });
  }

  removeToxic(name: string): Promise<void> {
    return this.lock.run(async () => {
      const toxic = this.getToxic(name);
      if (!toxic) throw Errors.toxicNotFound();
      await this.removeToxicLocked(toxic);
    });
  }

  resetToxics(): Promise<void> {
    return this.lock.run(async () => {
      for (const t of this.toxics()) await this.removeToxicLocked(t);
    });
  }

  private async removeToxicLocked(toxic: Toxic): Promise<void> {
    const list = this.chain[toxic.direction];
    list.splice(list.indexOf(toxic), 1);
    await Promise.all(this.links(toxic.direction).map((l) => l.removeToxic(toxic.name)));
  }

}
