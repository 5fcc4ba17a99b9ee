/**
 * The stand-in's HTTP, on the runner's thread: a VU's runtime blocks while its requests are sent
 * here in parallel (http.batch) with fetch. Timings as k6 splits them: `blocked` the hand-over
 * from the VU, then a new connection's time (http.mjs decides which request needs one: it waits
 * `connectMs`, and the time that wait took is timings.connecting), then sending, waiting (until
 * the answer's head, `headAt`) and receiving (the body; http.mjs extends it to when the VU has
 * the answer). Bytes are the request's and answer's HTTP/1.1 text, roughly.
 */
const now = () => performance.timeOrigin + performance.now();

function headBytes(first, headers) {
  return first.length + 2 + headers.reduce((n, [k, v]) => n + k.length + 2 + String(v).length + 2, 0) + 2;
}

async function one(req, signal) {
  const blockedMs = Math.max(0, now() - req.postedAt);
  const sent = headBytes(`${req.method} ${req.url} HTTP/1.1`, Object.entries(req.headers)) + Buffer.byteLength(req.body ?? '');
  let connectingMs = 0;
  try {
    const connecting = now();
    if (req.connectMs > 0) await new Promise((r) => setTimeout(r, req.connectMs));
    const started = now();
    connectingMs = req.connectMs > 0 ? started - connecting : 0;
    const res = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body === null || req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body,
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(req.timeoutMs)]),
    });
    const head = now();
    const body = await res.text();
    const done = now();
    const headers = [...res.headers.entries()];
    const received = headBytes(`HTTP/1.1 ${res.status} ${res.statusText}`, headers) + Buffer.byteLength(body);
    return { status: res.status, headers, body, blockedMs, connectingMs, sendingMs: 0, waitingMs: head - started, receivingMs: done - head, headAt: head, error: '', bytesSent: sent, bytesReceived: received };
  } catch (e) {
    return { status: 0, headers: [], body: '', blockedMs, connectingMs, sendingMs: 0, waitingMs: 0, receivingMs: 0, error: String(e && e.message ? e.message : e), bytesSent: 0, bytesReceived: 0 };
  }
}

/** Sends one VU's requests in parallel; `signal` aborts them when the VU's iteration is interrupted. */
export function fetchAll(requests, signal) {
  return Promise.all(requests.map((r) => one(r, signal)));
}
