/**
 * The ledger's idempotency tuples: its idempotent requests grouped by (API key, scope,
 * Idempotency-Key). A tuple is the row of its first request in the ledger's IdemTable (its head),
 * or, once the key is used again, a list of its rows. The index from a key to its head is an
 * open-addressed table of numbers (a head and a hash a slot), not a Map by Idempotency-Key string
 * (about 100 bytes a key); it reads a key back from the table only to confirm a slot whose hash
 * matches. Tuples are walked as the nested Maps they replace were: API keys in the order first
 * used, then scopes, then tuples in the order first used.
 */
import { Uint32Column, Uint8Column } from './paged-column.ts';
import { HashSlots, hashOf } from './hash-slots.ts';
import type { IdemTable } from './idem-table.ts';

/** A tuple's rows in the ledger's IdemTable: the one row, or a list once the key is used again. */
export type IdemTuple = number | number[];

interface Group {
  readonly id: number;
  /** First and last head of the group's tuples, plus one (0: none). */
  first: number;
  last: number;
}

export class IdemTuples {
  private readonly groups = new Map<string, Map<string, Group>>();
  private groupCount = 0;
  /** By head row: the group's next head, plus one (0: the last). */
  private readonly nextHead = new Uint32Column();
  /** By head row: its group. */
  private readonly groupOfHead = new Uint32Column();
  /** Tuples used more than once, by head row; `listed` marks their heads (most tuples are one request: no Map lookup for them). */
  private readonly lists = new Map<number, number[]>();
  private readonly listed = new Uint8Column();
  /** Heads by the hash of (group, Idempotency-Key). */
  private readonly slots = new HashSlots();

  constructor(private readonly table: IdemTable) {}

  /** The group of (key, scope), made when first asked for. */
  groupOf(key: string, scope: string): number {
    let byScope = this.groups.get(key);
    if (!byScope) this.groups.set(key, (byScope = new Map()));
    let g = byScope.get(scope);
    if (!g) byScope.set(scope, (g = { id: this.groupCount++, first: 0, last: 0 }));
    return g.id;
  }

  /** The group of (key, scope) if it has been made. */
  findGroup(key: string, scope: string): number | undefined {
    return this.groups.get(key)?.get(scope)?.id;
  }

  /** The tuple of `idemKey` in group `g` so far (undefined: not used yet). */
  find(g: number, idemKey: string): IdemTuple | undefined {
    const h = this.hash(g, idemKey);
    const slots = this.slots;
    for (let i = slots.first(h), e = slots.rowPlus1(i); e !== 0; i = slots.next(i), e = slots.rowPlus1(i)) {
      if (slots.hashAt(i) === h && this.groupOfHead.get(e - 1) === g && this.table.idemKeyIs(e - 1, idemKey)) return this.tupleOf(e - 1);
    }
    return undefined;
  }

  /**
   * Adds request `row` (with `idemKey`, in group `g`) to its tuple `tuple` (what find gave), or as a
   * new tuple's head; the tuple now. A list made or grown is new to the caller's sort.
   */
  add(g: number, idemKey: string, row: number, tuple: IdemTuple | undefined): IdemTuple {
    if (tuple === undefined) {
      this.groupOfHead.set(row, g);
      const group = this.groupById(g);
      if (group.last === 0) group.first = row + 1;
      else this.nextHead.set(group.last - 1, row + 1);
      group.last = row + 1;
      this.slots.add(row, this.hash(g, idemKey));
      return row;
    }
    if (Array.isArray(tuple)) {
      tuple.push(row);
      return tuple;
    }
    const list = [tuple, row];
    this.lists.set(tuple, list);
    this.listed.set(tuple, 1);
    return list;
  }

  /** Every tuple, in the order of the nested Maps this replaces. */
  *all(): Generator<IdemTuple> {
    for (const byScope of this.groups.values()) {
      for (const g of byScope.values()) {
        for (let h = g.first; h !== 0; h = this.nextHead.get(h - 1)) yield this.tupleOf(h - 1);
      }
    }
  }

  private tupleOf(head: number): IdemTuple {
    return this.listed.get(head) === 1 ? this.lists.get(head)! : head;
  }

  private byId: Group[] = [];
  private groupById(g: number): Group {
    if (this.byId.length !== this.groupCount) {
      this.byId = [];
      for (const byScope of this.groups.values()) for (const x of byScope.values()) this.byId[x.id] = x;
    }
    return this.byId[g];
  }

  private hash(g: number, idemKey: string): number {
    return (hashOf(idemKey) ^ Math.imul(g + 1, 0x9e3779b1)) >>> 0;
  }
}
