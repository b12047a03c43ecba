/**
 * A small TCP load balancer that behaves like a Kubernetes Service in front of the StatefulSet of
 * deploy/kubernetes (kube-proxy): each client connection is given to one ready backend (round robin) and
 * stays with it until either side closes it; readiness follows the pods' readiness probe, GET /ready every
 * `periodMs` with a `timeoutMs` timeout, out of rotation after `failureThreshold` failures in a row and back
 * after one success; a backend being terminated (a pod deleted or rolled) leaves the rotation at once, as
 * its endpoint does, before the process gets SIGTERM.
 *
 * What a client of the Service would see is counted: a connection accepted while no backend is ready, and a
 * backend that refused or reset the connection the balancer opened for it, both close the client's
 * connection (the client sees a reset).
 */
import net from 'node:net';

/** One backend: a broker's port on 127.0.0.1. */
export interface Backend {
  name: string;
  port: number;
}

/** How the balancer probes (the readinessProbe of deploy/kubernetes/statefulset.yaml by default). */
export interface ProbeSettings {
  path: string;
  periodMs: number;
  timeoutMs: number;
  failureThreshold: number;
}

/** What happened at the balancer. */
export interface BalancerCounts {
  /** Client connections accepted. */
  connections: number;
  /** Client connections closed because no backend was ready. */
  noBackend: number;
  /** Client connections closed because the chosen backend refused or reset the connection to it. */
  backendFailed: number;
  /** Readiness changes, in order: `<ms since start> <name> ready|unready|terminating`. */
  transitions: string[];
}

interface State {
  backend: Backend;
  ready: boolean;
  failures: number;
  terminating: boolean;
}

/** The balancer. */
export class ServiceBalancer {
  private readonly states: State[];
  private readonly server: net.Server;
  private timer: NodeJS.Timeout | null = null;
  private next = 0;
  private readonly started = Date.now();
  private readonly sockets = new Set<net.Socket>();
  readonly counts: BalancerCounts = { connections: 0, noBackend: 0, backendFailed: 0, transitions: [] };

  constructor(backends: Backend[], private readonly probe: ProbeSettings) {
    this.states = backends.map((backend) => ({ backend, ready: false, failures: 0, terminating: false }));
    this.server = net.createServer((client) => this.accept(client));
  }

  /** Listens on a free port of 127.0.0.1 and starts probing; resolves with the port. */
  async listen(): Promise<number> {
    await this.probeAll();
    this.timer = setInterval(() => void this.probeAll(), this.probe.periodMs);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  /** The names of the backends in rotation now. */
  get ready(): string[] {
    return this.states.filter((s) => s.ready && !s.terminating).map((s) => s.backend.name);
  }

  /** A backend's pod is being terminated: out of rotation at once (its connections stay until the broker closes them). */
  terminating(name: string): void {
    const state = this.find(name);
    state.terminating = true;
    this.transition(state, 'terminating');
  }

  /** The backend's new process was started: it enters the rotation once a probe succeeds. */
  replaced(name: string): void {
    const state = this.find(name);
    state.terminating = false;
    state.ready = false;
    state.failures = this.probe.failureThreshold;
  }

  /** Stops probing and closes the listener and every proxied connection. */
  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private find(name: string): State {
    const state = this.states.find((s) => s.backend.name === name);
    if (state === undefined) throw new Error(`no backend ${name}`);
    return state;
  }

  private transition(state: State, what: string): void {
    this.counts.transitions.push(`${((Date.now() - this.started) / 1000).toFixed(1)} s ${state.backend.name} ${what}`);
  }

  private async probeAll(): Promise<void> {
    await Promise.all(this.states.map(async (state) => {
      const ok = await fetch(`http://127.0.0.1:${state.backend.port}${this.probe.path}`, { signal: AbortSignal.timeout(this.probe.timeoutMs) })
        .then(async (res) => {
          await res.arrayBuffer();
          return res.status >= 200 && res.status < 400;
        }, () => false);
      if (ok) {
        state.failures = 0;
        if (!state.ready) {
          state.ready = true;
          if (!state.terminating) this.transition(state, 'ready');
        }
      } else {
        state.failures += 1;
        if (state.ready && state.failures >= this.probe.failureThreshold) {
          state.ready = false;
          this.transition(state, 'unready');
        }
      }
    }));
  }

  private accept(client: net.Socket): void {
    this.counts.connections += 1;
    this.sockets.add(client);
    client.once('close', () => this.sockets.delete(client));
    const candidates = this.states.filter((s) => s.ready && !s.terminating);
    if (candidates.length === 0) {
      this.counts.noBackend += 1;
      client.destroy();
      return;
    }
    const { backend } = candidates[this.next++ % candidates.length]!;
    const upstream = net.connect(backend.port, '127.0.0.1');
    this.sockets.add(upstream);
    upstream.once('close', () => this.sockets.delete(upstream));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.pipe(upstream);
      upstream.pipe(client);
    });
    upstream.on('error', () => {
      if (!connected) this.counts.backendFailed += 1;
      client.destroy();
    });
    client.on('error', () => upstream.destroy());
    upstream.once('end', () => client.end());
    client.once('end', () => upstream.end());
  }
}
