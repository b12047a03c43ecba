// Module resolution for the official Queen JS client (../shared/compat), which lives outside this repository
// and has no node_modules of its own: bare specifiers it imports (`uuid`) are resolved from this repository,
// where they are dev dependencies of @queen/server. Loaded with `module.register` (see official-client.mjs).
let compatPrefix = '';
let resolveFrom = '';

/** Receives the compat directory and the module to resolve from. */
export function initialize(data) {
  compatPrefix = data.compatPrefix;
  resolveFrom = data.resolveFrom;
}

/** Bare specifiers imported by the compat client resolve as if imported from this repository. */
export async function resolve(specifier, context, next) {
  const bare = !/^(\.|\/|node:|file:|data:)/.test(specifier);
  if (bare && context.parentURL?.startsWith(compatPrefix)) return next(specifier, { ...context, parentURL: resolveFrom });
  return next(specifier, context);
}
