/** Worker of the k6 shim: performs fetches for the blocked main thread. */
import { workerData } from 'node:worker_threads';

const { port, signal } = workerData;
const flag = new Int32Array(signal);

async function one(req) {
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
    return { status: res.status, headers: [...res.headers.entries()], body, durationMs: performance.now() - started, error: '' };
  } catch (e) {
    return { status: 0, headers: [], body: '', durationMs: performance.now() - started, error: String(e && e.message ? e.message : e) };
  }
}

port.on('message', async (requests) => {
  const results = await Promise.all(requests.map(one));
  port.postMessage(results);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
