// HTTP API of the embedded Toxiproxy: shapes, defaults and status codes as in Shopify/toxiproxy,
// driven through toxiproxy-node-client and raw HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Toxiproxy } from 'toxiproxy-node-client';
import { startToxiproxyServer, type ToxiproxyServer } from '../../src/chaos/proxy/index.ts';
import { api, connect, roundTrip, startEcho, type TestServer } from './toxiproxy-helpers.ts';

let server: ToxiproxyServer;
let echo: TestServer;
let client: Toxiproxy;

beforeAll(async () => {
  echo = await startEcho();
  server = await startToxiproxyServer({ port: 0 });
  client = new Toxiproxy(server.url);
});

afterAll(async () => {
  await server?.close();
  await echo?.close();
});

let seq = 0;
const uniq = (prefix: string): string => `${prefix}_${++seq}`;

async function newProxy(name = uniq('p')) {
  return client.createProxy({ name, listen: '127.0.0.1:0', upstream: echo.address });
}

describe('server', () => {
  it('listens on the requested host with port 0 mapped to a free port', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
  });

  it('GET /version answers the version as JSON, like Toxiproxy 2.x', async () => {
    const text = await client.getVersion();
    expect(JSON.parse(text)).toEqual({ version: expect.stringMatching(/^2\.\d+\.\d+/) });
    const raw = await api(server.url, 'GET', '/version');
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toBe('application/json;charset=utf-8');
    expect(raw.headers.get('x-toxiproxy-request-id')).toMatch(/^[0-9a-v]{20}$/);
  });

  it('answers unknown paths 404, wrong methods 405 and browsers 403', async () => {
    const missing = await api(server.url, 'GET', '/nope');
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('404 page not found\n');
    expect((await api(server.url, 'PUT', '/proxies')).status).toBe(405);
    expect((await api(server.url, 'GET', '/reset')).status).toBe(405);
    const browser = await api(server.url, 'GET', '/proxies', undefined, { 'User-Agent': 'Mozilla/5.0' });
    expect(browser.status).toBe(403);
  });
});

describe('proxies', () => {
  it('creates a proxy: 201, {name, listen, upstream, enabled, toxics}, actual port reported', async () => {
    const name = uniq('shape');
    const res = await api(server.url, 'POST', '/proxies', { name, listen: '127.0.0.1:0', upstream: echo.address });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(Object.keys(res.json)).toEqual(['name', 'listen', 'upstream', 'enabled', 'toxics']);
    expect(res.json).toEqual({ name, listen: expect.stringMatching(/^127\.0\.0\.1:\d+$/), upstream: echo.address, enabled: true, toxics: [] });
    expect(res.json.listen).not.toBe('127.0.0.1:0');
    // The reported address really is the proxy.
    const sock = await connect(res.json.listen);
    expect(String((await roundTrip(sock, 'ping')).data)).toBe('ping');
    sock.destroy();
  });

  it('resolves localhost like Go (IPv4) and reports the listen address it bound', async () => {
    const p = await client.createProxy({ name: uniq('lh'), listen: 'localhost:0', upstream: echo.address });
    expect(p.listen).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(p.enabled).toBe(true);
  });

  it('get / getAll return what was created', async () => {
    const p = await newProxy();
    const got = await client.get(p.name);
    expect(got.toJson()).toEqual(p.toJson());
    const all = await client.getAll();
    expect(all[p.name].listen).toBe(p.listen);
    const raw = await api(server.url, 'GET', '/proxies');
    expect(raw.status).toBe(200);
    expect(raw.json[p.name]).toEqual({ ...p.toJson(), toxics: [] });
    expect(Object.keys(raw.json)).toEqual([...Object.keys(raw.json)].sort());
  });

  it('409 on a duplicate name, 404 on an unknown proxy, error body {error, status}', async () => {
    const p = await newProxy();
    await expect(newProxy(p.name)).rejects.toThrow('Request failed with status code 409');
    const dup = await api(server.url, 'POST', '/proxies', { name: p.name, listen: '127.0.0.1:0', upstream: echo.address });
    expect(dup.status).toBe(409);
    expect(dup.json).toEqual({ error: 'proxy already exists', status: 409 });

    await expect(client.get('no_such_proxy')).rejects.toThrow('Request failed with status code 404');
    for (const [method, path] of [
      ['GET', '/proxies/no_such_proxy'],
      ['POST', '/proxies/no_such_proxy'],
      ['DELETE', '/proxies/no_such_proxy'],
      ['GET', '/proxies/no_such_proxy/toxics'],
      ['POST', '/proxies/no_such_proxy/toxics'],
    ]) {
      const res = await api(server.url, method, path, method === 'POST' ? {} : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json).toEqual({ error: 'proxy not found', status: 404 });
    }
  });

  it('400 on bad input', async () => {
    const noUpstream = await api(server.url, 'POST', '/proxies', { name: uniq('x') });
    expect(noUpstream.status).toBe(400);
    expect(noUpstream.json).toEqual({ error: 'missing required field: upstream', status: 400 });
    const noName = await api(server.url, 'POST', '/proxies', { upstream: echo.address });
    expect(noName.json).toEqual({ error: 'missing required field: name', status: 400 });
    const badJson = await api(server.url, 'POST', '/proxies', '{"name":');
    expect(badJson.status).toBe(400);
    expect(badJson.json.error).toMatch(/^bad request body: /);
    const empty = await api(server.url, 'POST', '/proxies', '');
    expect(empty.json).toEqual({ error: 'bad request body: EOF', status: 400 });
    const wrongType = await api(server.url, 'POST', '/proxies', { name: uniq('x'), upstream: echo.address, enabled: 'yes' });
    expect(wrongType.status).toBe(400);
    const badListen = await api(server.url, 'POST', '/proxies', { name: uniq('x'), listen: 'nonsense', upstream: echo.address });
    expect(badListen.status).toBe(500); // a listen failure is not an ApiError in Toxiproxy
  });

  it('creating with enabled:false keeps the requested listen address and does not listen', async () => {
    const res = await api(server.url, 'POST', '/proxies', { name: uniq('off'), listen: '127.0.0.1:0', upstream: echo.address, enabled: false });
    expect(res.status).toBe(201);
    expect(res.json.enabled).toBe(false);
    expect(res.json.listen).toBe('127.0.0.1:0');
  });

  it('update disables (connections refused) and re-enables a proxy; PATCH works too', async () => {
    const p = await newProxy();
    const off = await p.update({ enabled: false, listen: p.listen, upstream: p.upstream });
    expect(off.enabled).toBe(false);
    await expect(connect(p.listen)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const on = await p.update({ enabled: true, listen: p.listen, upstream: p.upstream });
    expect(on.enabled).toBe(true);
    expect(on.listen).toBe(p.listen);
    const patched = await api(server.url, 'PATCH', `/proxies/${p.name}`, { upstream: '127.0.0.1:1' });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ name: p.name, upstream: '127.0.0.1:1', enabled: true });
  });

  it('delete: 204, then 404 and the port is closed', async () => {
    const p = await newProxy();
    const del = await api(server.url, 'DELETE', `/proxies/${p.name}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await api(server.url, 'GET', `/proxies/${p.name}`)).status).toBe(404);
    await expect(connect(p.listen)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('toxics', () => {
  it('defaults: name <type>_<stream>, stream downstream, toxicity 1, zero attributes', async () => {
    const p = await newProxy();
    const raw = await api(server.url, 'POST', `/proxies/${p.name}/toxics`, { type: 'latency', attributes: { latency: 10 } });
    expect(raw.status).toBe(200); // Toxiproxy answers 200, not 201, for a new toxic
    expect(Object.keys(raw.json)).toEqual(['attributes', 'name', 'type', 'stream', 'toxicity']);
    expect(raw.json).toEqual({ attributes: { latency: 10, jitter: 0 }, name: 'latency_downstream', type: 'latency', stream: 'downstream', toxicity: 1 });

    const up = await p.addToxic<{ timeout: number }>({ type: 'timeout', stream: 'upstream' } as any);
    expect(up.toJson()).toEqual({ attributes: { timeout: 0 }, name: 'timeout_upstream', type: 'timeout', stream: 'upstream', toxicity: 1 });

    // Upstream toxics are listed first, as Toxiproxy walks its chains in that order.
    const list = await api(server.url, 'GET', `/proxies/${p.name}/toxics`);
    expect(list.json.map((t: { name: string }) => t.name)).toEqual(['timeout_upstream', 'latency_downstream']);
    expect((await api(server.url, 'GET', `/proxies/${p.name}`)).json.toxics).toEqual(list.json);
  });

  it('every toxic type has Toxiproxy attribute defaults', async () => {
    const p = await newProxy();
    const expected: Record<string, Record<string, number>> = {
      latency: { latency: 0, jitter: 0 },
      bandwidth: { rate: 0 },
      slow_close: { delay: 0 },
      timeout: { timeout: 0 },
      reset_peer: { timeout: 0 },
      limit_data: { bytes: 0 },
    };
    for (const [type, attributes] of Object.entries(expected)) {
      const res = await api(server.url, 'POST', `/proxies/${p.name}/toxics`, { type, toxicity: 0 });
      expect(res.status, type).toBe(200);
      expect(res.json.attributes, type).toEqual(attributes);
    }
    const slicer = await api(server.url, 'POST', `/proxies/${p.name}/toxics`, { type: 'slicer', attributes: { average_size: 10 }, toxicity: 0 });
    expect(slicer.json.attributes).toEqual({ average_size: 10, size_variation: 0, delay: 0 });
  });

  it('toxicity is reported like a Go float32', async () => {
    const p = await newProxy();
    const t = await api(server.url, 'POST', `/proxies/${p.name}/toxics`, { type: 'latency', toxicity: 0.3 });
    expect(t.json.toxicity).toBe(0.3);
    expect(t.text).toContain('"toxicity":0.3}');
  });

  it('409 duplicate, 404 unknown, 400 bad type/stream/attributes', async () => {
    const p = await newProxy();
    await p.addToxic({ type: 'latency', attributes: { latency: 1, jitter: 0 } } as any);
    await expect(p.addToxic({ type: 'latency', attributes: { latency: 1, jitter: 0 } } as any)).rejects.toThrow('status code 409');
    const dup = await api(server.url, 'POST', `/proxies/${p.name}/toxics`, { type: 'latency' });
    expect(dup.json).toEqual({ error: 'toxic already exists', status: 409 });

    await expect(p.getToxic('nope')).rejects.toThrow('status code 404');
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await api(server.url, method, `/proxies/${p.name}/toxics/nope`, method === 'POST' ? {} : undefined);
      expect(res.status, method).toBe(404);
      expect(res.json).toEqual({ error: 'toxic not found', status: 404 });
    }

    const badType = await api(server.url, 'POST', `/proxies/${p.name}/toxics`, { type: 'gremlins' });
    expect(badType.json).toEqual({ error: 'invalid toxic type', status: 400 });
    const badStream = await api(server.url, 'POST', `/proxies/${p.name}/toxics`, { type: 'latency', stream: 'sideways' });
    expect(badStream.json).toEqual({ error: 'stream was invalid, can be either upstream or downstream', status: 400 });
    const badAttr = await api(server.url, 'POST', `/proxies/${p.name}/toxics`, { type: 'bandwidth', attributes: { rate: 'fast' } });
    expect(badAttr.status).toBe(400);
    expect(badAttr.json.error).toMatch(/^bad request body: json: cannot unmarshal string/);
    const badSlicer = await api(server.url, 'POST', `/proxies/${p.name}/toxics`, { type: 'slicer', attributes: { average_size: 0 } });
    expect(badSlicer.status).toBe(400);
    const badToxicity = await api(server.url, 'POST', `/proxies/${p.name}/toxics`, { name: 'x', type: 'latency', toxicity: 'all' });
    expect(badToxicity.status).toBe(400);
  });

  it('update changes attributes (partially) and toxicity; delete answers 204', async () => {
    const p = await newProxy();
    const toxic = await p.addToxic<{ latency: number; jitter: number }>({ type: 'latency', attributes: { latency: 1000, jitter: 100 } } as any);
    const updated = await toxic.update({ attributes: { latency: 12345, jitter: 42 } } as any);
    expect(updated.attributes).toEqual({ latency: 12345, jitter: 42 });
    const partial = await api(server.url, 'PATCH', `/proxies/${p.name}/toxics/${toxic.name}`, { attributes: { jitter: 7 }, toxicity: 0.5 });
    expect(partial.status).toBe(200);
    expect(partial.json).toEqual({ attributes: { latency: 12345, jitter: 7 }, name: 'latency_downstream', type: 'latency', stream: 'downstream', toxicity: 0.5 });
    const fetched = await p.getToxic<{ latency: number }>(toxic.name);
    expect(fetched.toxicity).toBe(0.5);

    const del = await api(server.url, 'DELETE', `/proxies/${p.name}/toxics/${toxic.name}`);
    expect(del.status).toBe(204);
    await expect(p.getToxic(toxic.name)).rejects.toThrow('status code 404');
    await toxic.remove().catch((err: Error) => expect(err.message).toBe('Request failed with status code 404'));
  });
});

describe('populate and reset', () => {
  it('populate creates proxies (201, {proxies: [...]}) and keeps unchanged ones with their toxics', async () => {
    const a = uniq('pop');
    const b = uniq('pop');
    const first = await client.populate([
      { name: a, listen: '127.0.0.1:0', upstream: echo.address },
      { name: b, listen: '127.0.0.1:0', upstream: echo.address },
    ]);
    expect(Object.keys(first).sort()).toEqual([a, b].sort());
    expect(first[a].listen).toMatch(/^127\.0\.0\.1:[1-9]\d*$/);
    await first[a].addToxic({ type: 'latency', attributes: { latency: 5, jitter: 0 } } as any);

    // Same listen/upstream: kept as is (toxics survive). New upstream: replaced.
    const raw = await api(server.url, 'POST', '/populate', [
      { name: a, listen: first[a].listen, upstream: echo.address },
      { name: b, listen: first[b].listen, upstream: '127.0.0.1:1' },
    ]);
    expect(raw.status).toBe(201);
    expect(Object.keys(raw.json)).toEqual(['proxies']);
    expect(raw.json.proxies.map((p: { name: string }) => p.name)).toEqual([a, b]);
    expect(raw.json.proxies[0].toxics).toHaveLength(1);
    expect(raw.json.proxies[1]).toMatchObject({ upstream: '127.0.0.1:1', toxics: [] });
  });

  it('populate checks every entry first: 400 with {error, status, proxies: null}', async () => {
    const a = uniq('pop');
    const res = await api(server.url, 'POST', '/populate', [
      { name: a, listen: '127.0.0.1:0', upstream: echo.address },
      { name: uniq('pop'), listen: '127.0.0.1:0' },
    ]);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'missing required field: upstream at proxy 2', status: 400, proxies: null });
    expect((await api(server.url, 'GET', `/proxies/${a}`)).status).toBe(404);
    const notArray = await api(server.url, 'POST', '/populate', { name: a });
    expect(notArray.status).toBe(400);
  });

  it('reset removes every toxic and re-enables every proxy (204)', async () => {
    const p1 = await newProxy();
    const p2 = await newProxy();
    await p1.addToxic({ type: 'latency', attributes: { latency: 1, jitter: 0 } } as any);
    await p1.addToxic({ type: 'bandwidth', stream: 'upstream', attributes: { rate: 1 } } as any);
    await p2.update({ enabled: false, listen: p2.listen, upstream: p2.upstream });

    const res = await api(server.url, 'POST', '/reset');
    expect(res.status).toBe(204);
    await client.reset(); // and through the client

    expect((await api(server.url, 'GET', `/proxies/${p1.name}/toxics`)).json).toEqual([]);
    const again = await client.get(p2.name);
    expect(again.enabled).toBe(true);
    const sock = await connect(again.listen);
    expect(String((await roundTrip(sock, 'back')).data)).toBe('back');
    sock.destroy();
  });
});
