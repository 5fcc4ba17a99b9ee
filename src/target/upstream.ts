/** The service's HTTP client to the processor (or to a proxy in front of it). */
import { Agent, request } from 'undici';

export type UpstreamResult =
  | { kind: 'ok'; body: Record<string, unknown> }
  /** The processor answered, and refused (the upstream-error card): counts as an attempt. */
  | { kind: 'processor_error'; status: number }
  /** No usable answer: refused, reset, timed out, or a malformed response. Retried until it settles. */
  | { kind: 'unreachable'; reason: string };

export class UpstreamClient {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 64, pipelining: 1 });
  private readonly closing = new AbortController();

  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async post(path: string, body: unknown): Promise<UpstreamResult> {
    if (this.closing.signal.aborted) return { kind: 'unreachable', reason: 'closed' };
    const signal = AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.timeoutMs)]);
    try {
      const res = await request(this.baseUrl + path, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      });
      const text = await res.body.text();
      if (res.statusCode >= 500) {
        if (looksLikeProcessorError(text)) return { kind: 'processor_error', status: res.statusCode };
        return { kind: 'unreachable', reason: `HTTP ${res.statusCode}` };
      }
      if (res.statusCode !== 200) return { kind: 'unreachable', reason: `HTTP ${res.statusCode}` };
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed !== 'object' || parsed === null) return { kind: 'unreachable', reason: 'malformed answer' };
      return { kind: 'ok', body: parsed as Record<string, unknown> };
    } catch (err) {
      return { kind: 'unreachable', reason: (err as Error)?.name === 'TimeoutError' ? 'timeout' : ((err as { code?: string })?.code ?? (err as Error)?.message ?? 'error') };
    }
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.agent.destroy().catch(() => {});
  }
}

function looksLikeProcessorError(text: string): boolean {
  try {
    return (JSON.parse(text) as { error?: unknown })?.error === 'processor_error';
  } catch {
    return false;
  }
}
