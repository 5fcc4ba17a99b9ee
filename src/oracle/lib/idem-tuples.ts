/**
 * The ledger's idempotency tuples: its idempotent requests grouped by (API key, scope,
 * Idempotency-Key). A tuple is the row of its first request in the ledger's IdemTable (its head),
 * or, once the key is used again, a list of its rows: a chain of rows in paged columns (a next row
 * per row), made into an array only when asked for, not an array per tuple held to the end. The
 * index from a key to its head holds numbers (lib/hash-slots.ts: a head and a hash, the older ones
 * in runs on disk), not a Map by Idempotency-Key string (about 100 bytes a key); it reads a key
 * back from the table only to confirm a head whose hash matches. Tuples are walked as the nested
 * Maps they replace were: API keys in the order first used, then scopes, then tuples in the order
 * first used.
 */
import { Uint32Column, Uint8Column } from './paged-column.ts';
import { HashSlots, hashOf, type RowMatcher } from './hash-slots.ts';
import type { IdemTable } from './idem-table.ts';

/** A tuple's rows in the ledger's IdemTable: the one row, or (made when asked for) a list once the key is used again. */
export type IdemTuple = number | number[];

interface Group {
  readonly id: number;
  /** First and last head of the group's tuples, plus one (0: none). */
  first: number;
  last: number;
}

export class IdemTuples implements RowMatcher {
  private readonly groups = new Map<string, Map<string, Group>>();
  private groupCount = 0;
  /** Tuples (heads) so far. */
  private headCount = 0;
  /** By head row: the group's next head, plus one (0: the last). */
  private readonly nextHead = new Uint32Column();
  /** By head row: its group. */
  private readonly groupOfHead = new Uint32Column();
  /** By head row: the first and last rows of its list, plus one (0: the head is the tuple's one request, as most are). */
  private readonly firstOfList = new Uint32Column();
  private readonly lastOfList = new Uint32Column();
  /** By row: the next row of its tuple's list, plus one (0: the last). */
  private readonly nextInList = new Uint32Column();
  /**
   * Heads of the lists that got a request since they were last sorted (`sortLists`), each once
   * (`unsortedMark`): a paged column and a count, since a pass sorts none and a soak repeats many keys.
   */
  private readonly unsorted = new Uint32Column();
  private unsortedCount = 0;
  private readonly unsortedMark = new Uint8Column();
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

  /** The head of the tuple of `idemKey` in group `g` (undefined: not used yet). */
  findHead(g: number, idemKey: string): number | undefined {
    this.soughtGroup = g;
    this.soughtKey = idemKey;
    const head = this.slots.find(this.hash(g, idemKey), this);
    return head < 0 ? undefined : head;
  }

  /** The tuple `findHead` looks for, which `matchesRow` confirms a head against. */
  private soughtGroup = 0;
  private soughtKey = '';
  matchesRow(head: number): boolean {
    return this.groupOfHead.get(head) === this.soughtGroup && this.table.idemKeyIs(head, this.soughtKey);
  }

  /** The tuple of `idemKey` in group `g` so far (undefined: not used yet). */
  find(g: number, idemKey: string): IdemTuple | undefined {
    const head = this.findHead(g, idemKey);
    return head === undefined ? undefined : this.tupleOf(head);
  }

  /** Adds request `row` (with `idemKey`, in group `g`) to the tuple whose head is `head` (what findHead gave), or as a new tuple's head. */
  add(g: number, idemKey: string, row: number, head: number | undefined): void {
    if (head === undefined) {
      this.headCount++;
      this.groupOfHead.set(row, g);
      const group = this.groupById(g);
      if (group.last === 0) group.first = row + 1;
      else this.nextHead.set(group.last - 1, row + 1);
      group.last = row + 1;
      this.slots.add(row, this.hash(g, idemKey));
      return;
    }
    const last = this.lastOfList.get(head);
    if (last === 0) {
      this.firstOfList.set(head, head + 1);
      this.nextInList.set(head, row + 1);
    } else {
      this.nextInList.set(last - 1, row + 1);
    }
    this.lastOfList.set(head, row + 1);
    if (this.unsortedMark.get(head) === 0) {
      this.unsortedMark.set(head, 1);
      this.unsorted.set(this.unsortedCount++, head);
    }
  }

  /** Sorts the lists that got a request since they were last sorted (IdemTable.sortRows: by start, then seq). */
  sortLists(): boolean {
    if (this.unsortedCount === 0) return false;
    for (let u = 0; u < this.unsortedCount; u++) {
      const head = this.unsorted.get(u);
      const rows = this.tupleOf(head) as number[];
      this.table.sortRows(rows);
      this.firstOfList.set(head, rows[0] + 1);
      for (let i = 0; i < rows.length; i++) this.nextInList.set(rows[i], i + 1 < rows.length ? rows[i + 1] + 1 : 0);
      this.lastOfList.set(head, rows[rows.length - 1] + 1);
      this.unsortedMark.set(head, 0);
    }
    this.unsortedCount = 0;
    return true;
  }

  /** Every tuple's head, in the order of the nested Maps this replaces. */
  *heads(): Generator<number> {
    for (const byScope of this.groups.values()) {
      for (const g of byScope.values()) {
        for (let h = g.first; h !== 0; h = this.nextHead.get(h - 1)) yield h - 1;
      }
    }
  }

  /** How many tuples there are (what `heads()` walks). */
  get size(): number {
    return this.headCount;
  }

  /** Whether the tuple whose head is `head` holds more than its one request. */
  isList(head: number): boolean {
    return this.firstOfList.get(head) !== 0;
  }

  /** Every tuple, in the order of the nested Maps this replaces. */
  *all(): Generator<IdemTuple> {
    for (const h of this.heads()) yield this.tupleOf(h);
  }

  /** The tuple whose head is `head`: the row alone, or its list's rows in their order. */
  tupleOf(head: number): IdemTuple {
    const first = this.firstOfList.get(head);
    if (first === 0) return head;
    const rows: number[] = [];
    for (let r = first; r !== 0; r = this.nextInList.get(r - 1)) rows.push(r - 1);
    return rows;
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
