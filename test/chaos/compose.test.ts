/**
 * There is no Docker engine here, so the compose setup is checked by reading it: the
 * services, the image, and that every URL points at the service and port that serves it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (p: string) => readFileSync(root + p, 'utf8');

interface Service {
  image?: string;
  build?: string | { context: string };
  command?: string[] | string;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, unknown> | string[];
}

/** Compose's `${VAR:-default}` interpolation, with the environment empty. */
const interpolate = (s: string) => s.replace(/\$\{([A-Z_][A-Z0-9_]*)(?::-([^}]*))?\}/g, (_m, _name, def: string | undefined) => def ?? '');

const compose = parse(read('docker-compose.yml')) as { services: Record<string, Service> };
const services = compose.services;
const command = (name: string): string[] => {
  const c = services[name]?.command;
  expect(Array.isArray(c), `${name}.command is an exec-form list`).toBe(true);
  return (c as string[]).map((x) => interpolate(String(x)));
};
const flag = (cmd: string[], name: string): string => {
  const i = cmd.indexOf(name);
  expect(i, `${name} in ${cmd.join(' ')}`).toBeGreaterThanOrEqual(0);
  return cmd[i + 1];
};
const hostPort = (s: string) => {
  const u = new URL(s.includes('://') ? s : `tcp://${s}`);
  return { host: u.hostname, port: Number(u.port) };
};
const toxiproxyConfigPath = () => {
  const arg = command('toxiproxy').find((a) => a.startsWith('-config='));
  expect(arg, 'toxiproxy -config=').toBeDefined();
  const inContainer = arg!.slice('-config='.length);
  const mount = (services.toxiproxy.volumes ?? []).map((v) => v.split(':')).find(([, dest]) => dest === inContainer);
  expect(mount, `a volume mounted at ${inContainer}`).toBeDefined();
  return mount![0].replace(/^\.\//, '');
};

const readProxies = () => JSON.parse(read(toxiproxyConfigPath())) as { name: string; listen: string; upstream: string }[];

describe('docker-compose.yml', () => {
  it('has the three services', () => {
    expect(Object.keys(services).sort()).toEqual(['paystorm', 'target', 'toxiproxy']);
  });

  it('runs the real Toxiproxy, API on 8474 on all interfaces, populated from the config file', () => {
    expect(services.toxiproxy.image).toMatch(/^ghcr\.io\/shopify\/toxiproxy(:|$)/);
    const cmd = command('toxiproxy');
    expect(cmd).toContain('-host=0.0.0.0');
    expect(cmd.find((a) => a.startsWith('-port=')) ?? '-port=8474').toBe('-port=8474');
    expect(existsSync(root + toxiproxyConfigPath())).toBe(true);
  });

  it('routes the target\'s upstream through the toxiproxy "upstream" proxy back to the target\'s processor', () => {
    const target = command('target');
    expect(target[0]).toBe('serve');
    const upstreamUrl = hostPort(flag(target, '--upstream-url'));
    const upstream = readProxies().find((p) => p.name === 'upstream');
    expect(upstream, 'proxy "upstream" in the toxiproxy config').toBeDefined();
    // service -> toxiproxy: the URL names the toxiproxy service and the proxy's listen port.
    expect(upstreamUrl.host).toBe('toxiproxy');
    const listen = hostPort(upstream!.listen);
    expect(listen.host).toBe('0.0.0.0');
    expect(upstreamUrl.port).toBe(listen.port);
    // toxiproxy -> processor: the proxy forwards to the target service's processor port.
    const fwd = hostPort(upstream!.upstream);
    expect(fwd.host).toBe('target');
    expect(fwd.port).toBe(Number(flag(target, '--upstream-port')));
    expect(flag(target, '--host')).toBe('0.0.0.0');
  });

  it('builds the target from this repo, and paystorm runs from the same image', () => {
    const ctx = (b: Service['build']) => (typeof b === 'string' ? b : b?.context);
    expect(ctx(services.target.build)).toBe('.');
    expect(ctx(services.paystorm.build)).toBe('.');
    expect(services.paystorm.image).toBe(services.target.image);
  });

  it('points paystorm at the target (through the "client" proxy) and Toxiproxy by service name, and the target\'s webhooks at paystorm', () => {
    const run = command('paystorm');
    const target = command('target');
    expect(run[0]).toBe('run');
    expect(run[1]).toBe('chaos'); // ${SCENARIO:-chaos}
    expect(read('docker-compose.yml')).toContain('${SCENARIO:-chaos}');
    // paystorm -> toxiproxy "client" proxy -> the target's API port.
    const client = readProxies().find((p) => p.name === 'client');
    expect(client, 'proxy "client" in the toxiproxy config').toBeDefined();
    expect(hostPort(flag(run, '--target'))).toEqual({ host: 'toxiproxy', port: hostPort(client!.listen).port });
    expect(hostPort(client!.upstream)).toEqual({ host: 'target', port: Number(flag(target, '--port')) });
    expect(hostPort(flag(run, '--toxiproxy'))).toEqual({ host: 'toxiproxy', port: 8474 });
    expect(hostPort(flag(target, '--webhook-url'))).toEqual({ host: 'paystorm', port: Number(flag(run, '--webhook-port')) });
    expect(flag(run, '--webhook-secret')).toBe(flag(target, '--webhook-secret'));
    expect(flag(run, '--key')).toMatch(/^(\w+:)?[A-Za-z0-9]+_test_sk_/);
    expect(run).not.toContain('--proxy'); // the proxies come from the toxiproxy config; the run only adds toxics
    for (const p of readProxies()) expect(hostPort(p.listen).host).toBe('0.0.0.0');
  });

  it('starts paystorm after its dependencies', () => {
    const deps = services.paystorm.depends_on;
    const names = Array.isArray(deps) ? deps : Object.keys(deps ?? {});
    expect(names.sort()).toEqual(['target', 'toxiproxy']);
  });
});

describe('Dockerfile', () => {
  it('exists, installs with npm ci on node 20 and runs bin/paystorm.js, serve by default', () => {
    expect(existsSync(root + 'Dockerfile')).toBe(true);
    const text = read('Dockerfile');
    expect(text).toMatch(/^FROM node:20-bookworm-slim$/m);
    expect(text).toMatch(/^RUN npm ci\b/m);
    const json = (instr: string) => {
      const m = new RegExp(`^${instr} (\\[.*\\])$`, 'm').exec(text);
      return m ? (JSON.parse(m[1]) as string[]) : [];
    };
    const entry = [...json('ENTRYPOINT'), ...json('CMD')];
    expect(entry).toContain('bin/paystorm.js');
    expect(json('CMD')[0]).toBe('serve');
  });

  it('is documented with the compose commands', () => {
    expect(read('docs/chaos.md')).toMatch(/docker compose up --build/);
  });
});
