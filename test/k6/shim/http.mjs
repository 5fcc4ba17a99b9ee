/**
 * Shim of `k6/http`: synchronous requests, sent by the runner's thread while this runtime
 * blocks. Response headers get Go's canonical names (X-Ratelimit-Limit), as k6 reports them, so
 * scripts must read headers case-insensitively here as they must under k6.
 *
 * Timings as k6 reports them: `duration` is sending + waiting + receiving only; a request that
 * needs a new connection (the VU has none free to its origin: the first request, or more
 * parallel batch requests than open connections) first spends K6SHIM_CONNECT_MS (default 30)
 * connecting (as long as that wait really took), reported in `timings.connecting` and left out
 * of `duration`, as k6 leaves out blocked, connecting and tls_handshaking. `blocked` is the time
 * before the runner took the request (the hand-over); `receiving` ends when this runtime has
 * the answer. K6SHIM_NO_REUSE=1: every request connects (k6's noConnectionReuse).
 * Each request writes k6's http_req_* samples (one timestamp, the same tags) and counts its
 * bytes for the stage's data_sent / data_received.
 */
import { rt, syncFetch, emitSample, timestamp, post as toRunner, systemTags } from './state.mjs';

function canonical(name) {
  return name
    .split('-')
    .map((p) => (p ? p[0].toUpperCase() + p.slice(1).toLowerCase() : p))
    .join('-');
}

function durationMs(t) {
  if (t === undefined || t === null) return 60_000;
  if (typeof t === 'number') return t;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(String(t));
  if (!m) throw new Error(`k6 shim: bad timeout ${t}`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
}

function encodeBody(body) {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString();
  // k6 form-encodes objects.
  return new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString();
}

function redactAuth(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers)) out[k] = k.toLowerCase() === 'authorization' ? String(v).replace(/(\S+)$/, (s) => `…${s.slice(-4)}`) : v;
  return out;
}

function toResponse(req, res) {
  const headers = {};
  for (const [k, v] of res.headers) headers[canonical(k)] = headers[canonical(k)] ? `${headers[canonical(k)]}, ${v}` : v;
  const r = {
    status: res.status,
    headers,
    body: res.body,
    error: res.error,
    error_code: res.status === 0 ? 1000 : res.status >= 400 ? 1000 + res.status : 0,
    url: req.url,
    proto: 'HTTP/1.1',
    timings: { duration: res.sendingMs + res.waitingMs + res.receivingMs, waiting: res.waitingMs, blocked: res.blockedMs, connecting: res.connectingMs, tls_handshaking: 0, sending: res.sendingMs, receiving: res.receivingMs },
    request: { method: req.method, url: req.url, headers: req.headers, body: req.body ?? '' },
    json(selector) {
      const v = JSON.parse(this.body);
      if (selector) throw new Error('k6 shim: json(selector) is not supported');
      return v;
    },
  };
  const ranges = rt.responseCallback && rt.responseCallback.expectedStatuses;
  const expected = ranges ? ranges.some((r) => (typeof r === 'number' ? r === res.status : res.status >= r.min && res.status <= r.max)) : res.status >= 200 && res.status < 400;
  const name = req.tags.name ?? req.url;
  const sys = { expected_response: String(expected), method: req.method, name, proto: 'HTTP/1.1', status: String(res.status), url: name };
  if (r.error_code) sys.error_code = String(r.error_code);
  if (res.status === 0) {
    delete sys.proto;
    sys.error = res.error;
  }
  // options.systemTags decides which of k6's own tags a sample carries; the request's tags stay.
  const tags = systemTags(sys);
  Object.assign(tags, req.tags);
  const time = timestamp();
  const t = r.timings;
  emitSample('http_reqs', 'counter', 'default', 1, tags, { time });
  emitSample('http_req_duration', 'trend', 'time', t.duration, tags, { time });
  emitSample('http_req_blocked', 'trend', 'time', t.blocked, tags, { time });
  emitSample('http_req_connecting', 'trend', 'time', t.connecting, tags, { time });
  emitSample('http_req_tls_handshaking', 'trend', 'time', t.tls_handshaking, tags, { time });
  emitSample('http_req_sending', 'trend', 'time', t.sending, tags, { time });
  emitSample('http_req_waiting', 'trend', 'time', t.waiting, tags, { time });
  emitSample('http_req_receiving', 'trend', 'time', t.receiving, tags, { time });
  emitSample('http_req_failed', 'rate', 'default', expected ? 0 : 1, tags, { time });
  rt.bytesSent += res.bytesSent;
  rt.bytesReceived += res.bytesReceived;
  toRunner({
    type: 'request',
    request: {
      method: req.method,
      url: req.url,
      headers: redactAuth(req.headers),
      body: req.body,
      tags: req.tags,
      status: res.status,
      responseHeaders: headers,
      responseBody: res.body,
      error: res.error,
      connectMs: req.connectMs,
      /** Epoch ms when the answer was in hand (this thread). */
      receivedAt: res.receivedAt,
    },
  });
  return r;
}

/** Which of these parallel requests need a new connection (they get `connectMs`). */
function connect(prepared) {
  const byOrigin = new Map();
  for (const req of prepared) {
    let origin;
    try {
      origin = new URL(req.url).origin;
    } catch {
      origin = req.url;
    }
    const used = byOrigin.get(origin) ?? 0;
    byOrigin.set(origin, used + 1);
    const open = rt.noReuse ? 0 : (rt.connected.get(origin) ?? 0);
    req.connectMs = used >= open ? rt.connectMs : 0;
  }
  for (const [origin, n] of byOrigin) rt.connected.set(origin, Math.max(rt.connected.get(origin) ?? 0, n));
}

function fetchAll(prepared) {
  if (rt.stage === 'init') throw new Error('Making http requests in the init context is not supported');
  connect(prepared);
  const postedAt = performance.timeOrigin + performance.now();
  for (const req of prepared) req.postedAt = postedAt;
  const results = syncFetch(prepared);
  const receivedAt = Date.now();
  // In k6 the VU reads the answer itself: receiving ends when this runtime has it, so the
  // hand-back from the runner's thread (its wake-up, on a loaded machine tens of ms) is in it.
  const inHand = performance.timeOrigin + performance.now();
  for (const r of results) {
    r.receivedAt = receivedAt;
    if (r.status !== 0) r.receivingMs = Math.max(r.receivingMs, inHand - r.headAt);
  }
  return results;
}

function prepare(method, url, body, params) {
  const p = params || {};
  return { method: String(method).toUpperCase(), url: String(url), headers: { ...(p.headers || {}) }, body: encodeBody(body), timeoutMs: durationMs(p.timeout), tags: { ...(p.tags || {}) } };
}

export function request(method, url, body, params) {
  const req = prepare(method, url, body, params);
  return toResponse(req, fetchAll([req])[0]);
}
export const get = (url, params) => request('GET', url, null, params);
export const head = (url, params) => request('HEAD', url, null, params);
export const del = (url, body, params) => request('DELETE', url, body, params);
export const post = (url, body, params) => request('POST', url, body, params);
export const put = (url, body, params) => request('PUT', url, body, params);
export const patch = (url, body, params) => request('PATCH', url, body, params);

export function batch(requests) {
  const entries = Array.isArray(requests) ? requests.map((r, i) => [i, r]) : Object.entries(requests);
  const prepared = entries.map(([, r]) => {
    if (typeof r === 'string') return prepare('GET', r, null, null);
    if (Array.isArray(r)) return prepare(r[0], r[1], r[2], r[3]);
    return prepare(r.method, r.url, r.body, r.params);
  });
  const results = fetchAll(prepared);
  const out = Array.isArray(requests) ? [] : {};
  entries.forEach(([k], i) => {
    out[k] = toResponse(prepared[i], results[i]);
  });
  return out;
}

export function setResponseCallback(cb) {
  rt.responseCallback = cb;
}
export function expectedStatuses(...ranges) {
  return { expectedStatuses: ranges };
}

export default { request, get, head, del, post, put, patch, batch, setResponseCallback, expectedStatuses };
