import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { connectBus, declareTopology, findBinary, freePort, type Bus } from '../../core/nats.js';
import { tempDir } from './tmp.js';

export interface TestNats {
  url: string;
  port: number;
  storeDir: string;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
  /** Start again on the same port and store. */
  restart(): Promise<void>;
}

const procs = new Set<ChildProcess>();
process.on('exit', () => {
  for (const p of procs) p.kill('SIGKILL');
});

async function waitReady(port: number, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const nc = await connect({ servers: `127.0.0.1:${port}`, reconnect: false, timeout: 500 });
      // JetStream may need a moment after the listener is up (clusters elect a meta leader)
      await nc.close();
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function spawnServer(args: string[]): ChildProcess {
  const bin = findBinary('nats-server');
  if (!bin) throw new Error('nats-server is not installed (apt-get install nats-server)');
  const p = spawn(bin, args, { stdio: 'ignore' });
  procs.add(p);
  p.on('exit', () => procs.delete(p));
  return p;
}

function exited(p: ChildProcess): Promise<void> {
  return p.exitCode !== null || p.signalCode !== null ? Promise.resolve() : new Promise((r) => p.once('exit', () => r()));
}

/** A JetStream nats-server for one suite: own free loopback port, own temp store. */
export async function startNats(extraArgs: string[] = []): Promise<TestNats> {
  const port = await freePort();
  const storeDir = tempDir('th-nats-');
  const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir, ...extraArgs];
  let proc = spawnServer(args);
  await waitReady(port);
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async stop() {
      proc.kill('SIGTERM');
      await exited(proc);
    },
    async kill() {
      proc.kill('SIGKILL');
      await exited(proc);
    },
    async restart() {
      proc = spawnServer(args);
      await waitReady(port);
    },
  };
}

export interface TestNatsCluster {
  url: string;
  nodes: TestNats[];
  stop(): Promise<void>;
}

/** A 3-node (or n-node) JetStream cluster on loopback ports, for lost-node tests. */
export async function startNatsCluster(size = 3): Promise<TestNatsCluster> {
  const clientPorts = await Promise.all(Array.from({ length: size }, () => freePort()));
  const routePorts = await Promise.all(Array.from({ length: size }, () => freePort()));
  const routes = routePorts.map((p) => `nats://127.0.0.1:${p}`).join(',');
  const nodes: TestNats[] = [];
  const starters = clientPorts.map((port, i) => {
    const storeDir = tempDir(`th-nats-c${i}-`);
    const args = [
      '-js', '-a', '127.0.0.1', '-p', String(port), '-sd', join(storeDir, 'js'),
      '-n', `n${i}`, '--cluster_name', 'th', '--cluster', `nats://127.0.0.1:${routePorts[i]}`, '--routes', routes,
    ];
    let proc = spawnServer(args);
    const node: TestNats = {
      url: `nats://127.0.0.1:${port}`,
      port,
      storeDir,
      async stop() {
        proc.kill('SIGTERM');
        await exited(proc);
      },
      async kill() {
        proc.kill('SIGKILL');
        await exited(proc);
      },
      async restart() {
        proc = spawnServer(args);
        await waitReady(port);
      },
    };
    nodes.push(node);
    return waitReady(port);
  });
  await Promise.all(starters);
  return {
    url: nodes.map((n) => n.url).join(','),
    nodes,
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
    },
  };
}

/**
 * A suite's nats-server with the project's topology declared and one connection to it, started
 * and stopped by the suite's hooks; `bus()` inside its tests.
 */
export function useBusWithTopology(suite: { before(fn: () => Promise<void>): void; after(fn: () => Promise<void>): void }): { bus(): Bus } {
  let nats: TestNats | undefined;
  let bus: Bus | undefined;
  suite.before(async () => {
    nats = await startNats();
    bus = await connectBus(nats.url);
    await declareTopology(bus, { replicas: 1, maxDeliver: 5, ackWaitMs: 30_000 });
  });
  suite.after(async () => {
    await bus?.close();
    await nats?.stop();
  });
  return { bus: () => bus! };
}
