/**
 * Routing (docs/api.md 1.7): the raw path is split at `/`, literal segments win over parameters (with
 * backtracking), one trailing `/` is ignored, and parameters are percent-decoded after the match.
 */
import type { Route } from './route.js';

interface Node {
  literals: Map<string, Node>;
  param: { name: string; node: Node } | null;
  routes: Map<string, Route>;
}

const newNode = (): Node => ({ literals: new Map(), param: null, routes: new Map() });

/** A successful match: the route and its raw (still encoded) parameters. */
export interface Match {
  route: Route;
  rawParams: Record<string, string>;
}

/** Matches method + path against the route table. */
export class Router {
  private readonly root = newNode();

  constructor(routes: Route[]) {
    for (const route of routes) this.add(route);
  }

  private add(route: Route): void {
    let node = this.root;
    for (const segment of route.path.split('/').slice(1)) {
      if (segment.startsWith(':')) {
        const name = segment.slice(1);
        if (node.param !== null && node.param.name !== name) throw new Error(`conflicting parameter names at ${route.path}`);
        node.param ??= { name, node: newNode() };
        node = node.param.node;
      } else {
        let next = node.literals.get(segment);
        if (next === undefined) {
          next = newNode();
          node.literals.set(segment, next);
        }
        node = next;
      }
    }
    if (node.routes.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
    node.routes.set(route.method, route);
  }

  /** Finds the route for a method and a raw path (without the query), or null. */
  match(method: string, rawPath: string): Match | null {
    let path = rawPath;
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    const segments = path.split('/').slice(1);
    const params: Record<string, string> = {};
    const route = this.walk(this.root, segments, 0, method, params);
    return route === null ? null : { route, rawParams: params };
  }

  private walk(node: Node, segments: string[], i: number, method: string, params: Record<string, string>): Route | null {
    if (i === segments.length) return node.routes.get(method) ?? null;
    const segment = segments[i]!;
    const literal = node.literals.get(segment);
    if (literal !== undefined) {
      const found = this.walk(literal, segments, i + 1, method, params);
      if (found !== null) return found;
    }
    if (node.param !== null && segment.length > 0) {
      params[node.param.name] = segment;
      const found = this.walk(node.param.node, segments, i + 1, method, params);
      if (found !== null) return found;
      delete params[node.param.name];
    }
    return null;
  }
}
