/** Worker of the k6 shim: performs fetches for the blocked main thread. */
import { workerData } from 'node:worker_threads';

const { port, signal } = workerData;
const flag = new Int32Array(signal);

async function one(req) {
  // Time from the request's hand-over until this worker took it (its start-up, the message): k6's `blocked`.
  const blockedMs = Math.max(0, performance.timeOrigin + performance.now() - req.postedAt);
  // A new connection (http.mjs decides which request needs one): its time passes before the
  // request is sent, and is reported as k6 does, in timings.connecting, not in duration.
  if (req.connectMs > 0) await new Promise((r) => setTimeout(r, req.connectMs));
  const started = performance.now();
  try {
    const res = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body === null || req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    const body = await res.text();
    return { status: res.status, headers: [...res.headers.entries()], body, durationMs: performance.now() - started, blockedMs, error: '' };
  } catch (e) {
    return { status: 0, headers: [], body: '', durationMs: performance.now() - started, blockedMs, error: String(e && e.message ? e.message : e) };
  }
}

port.on('message', async (requests) => {
  const results = await Promise.all(requests.map(one));
  port.postMessage(results);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
