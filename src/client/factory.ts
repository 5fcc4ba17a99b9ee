/**
 * The run's client factory: holds the keys' secrets (only here, in private fields), hands out
 * one API client per key, and keeps the queue of answered exchanges whose records are still to
 * be built (recording.ts).
 */
import { randomBytes } from 'node:crypto';
import type { ApiClient, KeyHandle, Presentation } from '../spec/index.ts';
import type { ExchangeRecord } from '../history/index.ts';
import { UndiciApiClient } from './api-client.ts';
import type { ExchangeOffload } from '../history/exchange-record.ts';
import type { RequestGate } from './gate.ts';
import type { KeySecret } from './keys.ts';
import { LeakScanner } from '../history/leak-scanner.ts';
import type { Result } from './recording.ts';
import type { Clock } from './timing.ts';
import { HttpTransport } from './transport.ts';

export interface ClientFactoryOptions {
  baseUrl: string;
  keys: readonly KeySecret[];
  presentation: Presentation;
  clock: Clock;
  /** Receives every exchange record (normally HistoryWriter.write). */
  sink: (record: ExchangeRecord) => void;
  /** Default per-request time-out (ms). */
  timeoutMs?: number;
  /** Scales polling and retry back-off (embedded target); 1 for a real deployment. */
  timeScale?: number;
  /** Scenario name stamped on records (changed with setScenario). */
  scenario?: string;
  /** Once aborted, clients send nothing more and sleeps end early. */
  signal?: AbortSignal;
  gate?: RequestGate;
  /** Connections per origin (default unlimited). */
  connections?: number | null;
  /**
   * Hand answered exchanges over raw to be built and written elsewhere (the
   * history writer's worker thread) instead of building records here; a record
   * a scenario reads is still built here, on demand, with the same seq.
   */
  offload?: ExchangeOffload;
}

export class ClientFactory {
  readonly handles: readonly KeyHandle[];
  readonly scanner: LeakScanner;
  readonly transport: HttpTransport;
  readonly baseUrl: string;
  readonly origin: string;
  /** Path prefix of the base URL (a target mounted under a path). */
  readonly basePath: string;
  presentation: Presentation;
  scenario: string;
  readonly timeoutMs: number;
  readonly timeScale: number;
  readonly clock: Clock;
  readonly sink: (record: ExchangeRecord) => void;
  readonly signal: AbortSignal | undefined;
  readonly gate: RequestGate | undefined;
  readonly offload: ExchangeOffload | undefined;
  readonly #secrets: string[] = [];
  readonly #clients = new Map<number, UndiciApiClient>();
  readonly #idemNonce = randomBytes(5).toString('hex');
  #idemCounter = 0;
  #pendingIntended: number | undefined;
  /** Exchanges answered whose records are not built yet, in completion order. */
  #deferred: Result[] = [];
  #flushScheduled = false;
  #sinkErrorReported = false;

  constructor(opts: ClientFactoryOptions) {
    const u = new URL(opts.baseUrl);
    this.baseUrl = opts.baseUrl;
    this.origin = u.origin;
    this.basePath = u.pathname.replace(/\/+$/, '');
    this.presentation = opts.presentation;
    this.scenario = opts.scenario ?? '';
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.timeScale = opts.timeScale ?? 1;
    this.clock = opts.clock;
    this.sink = opts.sink;
    this.signal = opts.signal;
    this.gate = opts.gate;
    this.offload = opts.offload;
    this.scanner = new LeakScanner();
    this.transport = new HttpTransport({ connections: opts.connections ?? null });
    const handles: KeyHandle[] = [];
    for (const k of opts.keys) {
      this.#secrets[k.handle.index] = k.secret;
      this.scanner.addKey(k.secret, k.handle.label);
      this.offload?.addScanKey(k.secret, k.handle.label);
      handles.push(k.handle);
    }
    this.handles = handles;
  }

  /**
   * A throwaway key an auth probe sends: the target must not echo it either (SEC-2), so the
   * leak scanners learn it like the run's own keys.
   */
  probeKey(secret: string, label: string): string {
    this.scanner.addKey(secret, label);
    this.offload?.addScanKey(secret, label);
    return secret;
  }

  /** Remembers a card number the run sends, here and where records are built. */
  addCard(number: string): void {
    if (this.scanner.addCard(number)) this.offload?.addScanCard(number);
  }

  setScenario(name: string): void {
    this.scenario = name;
  }

  /** The client of one key (one per key, shared). */
  client(handle: KeyHandle): ApiClient {
    let c = this.#clients.get(handle.index);
    if (!c) {
      const secret = this.#secrets[handle.index];
      if (secret === undefined) throw new Error(`no key with handle ${handle.label}`);
      c = new UndiciApiClient(this, handle, secret);
      this.#clients.set(handle.index, c);
    }
    return c;
  }

  /** The Authorization value of a key, for the engine's own senders (the autocannon burst); never recorded. */
  authorizationFor(handle: KeyHandle): string {
    const secret = this.#secrets[handle.index];
    if (secret === undefined) throw new Error(`no key with handle ${handle.label}`);
    return `Bearer ${secret}`;
  }

  /** A fresh Idempotency-Key, unique across runs (random run nonce + counter). */
  newIdempotencyKey(): string {
    return `ps_${this.#idemNonce}_${(++this.#idemCounter).toString(36)}`;
  }

  /**
   * Open-model executors announce an iteration's intended start here just before
   * calling it; the first request that iteration makes (synchronously, before
   * its first await) takes it as its `tIntended`, so late starts are measured
   * from when they were due even when the scenario does not pass `tIntended`.
   */
  setIntended(t: number | undefined): void {
    this.#pendingIntended = t;
  }

  takeIntended(): number | undefined {
    const t = this.#pendingIntended;
    this.#pendingIntended = undefined;
    return t;
  }

  /** Queues an answered exchange; its record is built on a coming turn of the event loop (or when read). */
  defer(result: Result): void {
    this.#deferred.push(result);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      // Two hops: undici writes the next request on a connection from a setImmediate queued
      // as a response completes (pipelining 1); building records in the following turn's
      // check phase lets every such write go out first.
      setImmediate(this.#flushNextTurn);
    }
  }

  readonly #flushNextTurn = (): void => {
    setImmediate(this.#flushNow);
  };

  readonly #flushNow = (): void => {
    this.flushDeferred();
  };

  /** Builds and writes every pending record, in completion order. The engine calls it before the end record. */
  flushDeferred(): void {
    this.#flushScheduled = false;
    const queue = this.#deferred;
    if (queue.length === 0) return;
    this.#deferred = [];
    for (const r of queue) r.build();
    for (const r of queue) {
      const err = r.failedWith;
      if (err !== undefined && !this.#sinkErrorReported) {
        // The sink refused a record (history closed): say so once; reading that result rethrows it.
        this.#sinkErrorReported = true;
        process.stderr.write(`paystorm: an exchange record could not be written: ${(err as Error)?.message ?? String(err)}\n`);
      }
    }
  }

  async close(): Promise<void> {
    await this.transport.close();
    this.flushDeferred();
  }
}
