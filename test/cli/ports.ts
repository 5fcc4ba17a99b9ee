/**
 * A port a test must name before anything listens on it (the target must know the webhook
 * receiver's port, the service its proxy's). Port 0 cannot serve there. Ports the kernel hands
 * out for port 0, and for outgoing connections, come from its ephemeral range: one picked there
 * was taken by a parallel test's connection before the receiver bound it (EADDRINUSE on a
 * clean-clone CI run). So pick below that range, at random, checked free where it will bind.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(false));
    s.listen(port, host, () => s.close(() => res(true)));
  });
}

export async function portBelowEphemeralRange(host = '0.0.0.0'): Promise<number> {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // Not Linux: keep the usual lower bound.
  }
  const from = Math.max(1024, Math.min(20000, low - 5000));
  for (let i = 0; i < 100; i++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (await canListen(port, host)) return port;
  }
  throw new Error(`no free port below the ephemeral range (${from}-${low - 1})`);
}
