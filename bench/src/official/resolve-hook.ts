/**
 * A module-resolution hook (node:module `register`) for the official Queen JS client, which lives outside
 * this repository (../shared/compat) without node_modules of its own: the bare specifiers it imports (`uuid`)
 * resolve from this repository instead.
 */

/** What `register` hands the hook. */
interface HookData {
  compatPrefix: string;
  resolveFrom: string;
}

interface ResolveContext {
  parentURL?: string;
}

type NextResolve = (specifier: string, context: ResolveContext) => Promise<unknown>;

let data: HookData = { compatPrefix: '\u0000', resolveFrom: '' };

/** Receives the compat directory's URL and the module to resolve from. */
export function initialize(received: HookData): void {
  data = received;
}

/** Bare specifiers imported from the compat directory resolve as if imported from this repository. */
export async function resolve(specifier: string, context: ResolveContext, next: NextResolve): Promise<unknown> {
  const bare = !/^(\.|\/|node:|file:|data:)/.test(specifier);
  if (bare && context.parentURL?.startsWith(data.compatPrefix) === true) return next(specifier, { ...context, parentURL: data.resolveFrom });
  return next(specifier, context);
}
