/**
 * Fault schedules (issue 6): a schedule is data — in a scenario or the config file —
 * listing Toxiproxy toxics to apply to named proxies at given times.
 *
 * Toxiproxy rolls `toxicity` once per connection, not per request: with toxicity 0.3
 * about 30% of the connections opened (or alive when the toxic is added) are affected,
 * and every request on such a keep-alive connection is. The history's fault records
 * carry each window so the oracle can tell which requests ran inside which fault.
 * Plain tables and types (no zod): src/chaos/fault-schedule.ts validates a schedule.
 */
import { PaystormError, EXIT } from './exit-codes.ts';
import type { FaultRecord } from '../history/schema.ts';

/** Toxiproxy's toxic types, plus `down` (the proxy disabled: connections refused). */
export const FAULT_TYPES = ['latency', 'timeout', 'reset_peer', 'bandwidth', 'slow_close', 'slicer', 'limit_data', 'down'] as const;
export type FaultType = (typeof FAULT_TYPES)[number];

/** `upstream` acts on client -> server bytes, `downstream` on server -> client (Toxiproxy's default). */
export const FAULT_STREAMS = ['upstream', 'downstream'] as const;
export type FaultStream = (typeof FAULT_STREAMS)[number];

/** Toxiproxy's attribute names per type, with units; `required` ones must be given. */
export const FAULT_ATTRIBUTES: Readonly<Record<FaultType, { required: readonly string[]; optional: readonly string[]; units: Record<string, string> }>> = {
  latency: { required: ['latency'], optional: ['jitter'], units: { latency: 'ms', jitter: 'ms' } },
  // Data is dropped (never delivered); the connection is closed after `timeout` ms without data,
  // and (any timeout, 0 included) when the toxic is removed. timeout 0: the toxic never closes it by itself.
  timeout: { required: [], optional: ['timeout'], units: { timeout: 'ms' } },
  // timeout 0: reset at once.
  reset_peer: { required: [], optional: ['timeout'], units: { timeout: 'ms' } },
  bandwidth: { required: ['rate'], optional: [], units: { rate: 'KB/s' } },
  slow_close: { required: ['delay'], optional: [], units: { delay: 'ms' } },
  slicer: { required: ['average_size'], optional: ['size_variation', 'delay'], units: { average_size: 'bytes', size_variation: 'bytes', delay: 'µs' } },
  limit_data: { required: ['bytes'], optional: [], units: { bytes: 'bytes' } },
  down: { required: [], optional: [], units: {} },
};

/** One step: from `at` ms after the schedule starts, for `duration` ms (defaults filled: src/chaos/fault-schedule.ts parses one). */
export interface FaultStep {
  at: number;
  duration: number;
  proxy: string;
  type: FaultType;
  stream: FaultStream;
  toxicity: number;
  attributes: Record<string, number>;
}

/** A proxy name: letters, digits, ".", "_", "-". */
export const PROXY_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

/** When the last window of a schedule closes (ms from its start). */
export function scheduleLengthMs(steps: readonly FaultStep[]): number {
  return steps.reduce((m, s) => Math.max(m, s.at + s.duration), 0);
}

/** The fault windows a request that ran from tStart to tEnd overlapped (run-monotonic ms). */
export function faultsDuring(faults: readonly FaultRecord[], tStart: number, tEnd: number): FaultRecord[] {
  return faults.filter((f) => f.tStart <= tEnd && f.tEnd >= tStart);
}

// ---------------------------------------------------------------- --proxy

export interface ProxySpec {
  name: string;
  /** host:port Toxiproxy listens on. */
  listen: string;
  /** host:port it forwards to. */
  upstream: string;
}

const PROXY_ARG_EXAMPLE = '--proxy "upstream=127.0.0.1:4111>127.0.0.1:4011"';

function checkHostPort(part: string, what: string, arg: string): string {
  const colon = part.lastIndexOf(':');
  const host = colon > 0 ? part.slice(0, colon) : '';
  const port = colon > 0 ? part.slice(colon + 1) : '';
  const hostOk = /^[A-Za-z0-9.-]+$/.test(host) || /^\[[0-9A-Fa-f:.]+\]$/.test(host);
  if (!hostOk || !/^\d{1,5}$/.test(port) || Number(port) > 65535) {
    throw new PaystormError(`--proxy "${arg}": the ${what} address "${part}" is not HOST:PORT. Write it as ${PROXY_ARG_EXAMPLE}.`, EXIT.usage, '--proxy');
  }
  return part;
}

/** Parses `--proxy NAME=LISTEN_HOST:PORT>UPSTREAM_HOST:PORT`. */
export function parseProxyArg(arg: string): ProxySpec {
  const s = arg.trim();
  const eq = s.indexOf('=');
  const gt = s.indexOf('>');
  if (eq <= 0 || gt < 0) {
    const hint = gt < 0 ? ' No ">" found: quote the whole value, since an unquoted > is a shell redirect.' : '';
    throw new PaystormError(`--proxy "${arg}": expected NAME=LISTEN_HOST:PORT>UPSTREAM_HOST:PORT, for example ${PROXY_ARG_EXAMPLE}.${hint}`, EXIT.usage, '--proxy');
  }
  const name = s.slice(0, eq);
  if (!PROXY_NAME_PATTERN.test(name)) {
    throw new PaystormError(`--proxy "${arg}": the proxy name "${name}" may use only letters, digits, ".", "_" and "-". Example: ${PROXY_ARG_EXAMPLE}.`, EXIT.usage, '--proxy');
  }
  if (gt < eq) throw new PaystormError(`--proxy "${arg}": the name comes first. Example: ${PROXY_ARG_EXAMPLE}.`, EXIT.usage, '--proxy');
  return {
    name,
    listen: checkHostPort(s.slice(eq + 1, gt), 'listen', arg),
    upstream: checkHostPort(s.slice(gt + 1), 'upstream', arg),
  };
}
