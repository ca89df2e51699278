# Buyer Intel Sync. One image, three roles: `start` (default: HTTP + worker), `serve`, `worker`;
# `doctor` checks a deployment. Node 24 runs the TypeScript sources directly (type stripping), so the
# image needs no build step and no dev dependencies.
# The base is pinned by tag and digest (Docker Hub's multi-arch index of node:24.19.0-slim, Debian
# bookworm, as github.com/docker-library/repo-info records it: repos/node/remote/24.19.0-slim.md at
# commit 2534b852): every build starts from the same bytes. Upgrade
# both together, here and in the sandbox image's Dockerfile (`docker buildx imagetools inspect
# node:24.x.y-slim`). No `# syntax=` line: the builder's own frontend reads this file, so no floating
# frontend image (docker/dockerfile:1) is pulled at build time.

# --- production dependencies only --------------------------------------------------------------
FROM node:24.19.0-slim@sha256:cd84903a12dbd26b46f1f3b8144a2568c41c5d37ddd0c7a80a34c7a19786b35f AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime ------------------------------------------------------------------------------------
FROM node:24.19.0-slim@sha256:cd84903a12dbd26b46f1f3b8144a2568c41c5d37ddd0c7a80a34c7a19786b35f
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
# Owned by root and read-only for the `node` user that runs the service.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY connectors ./connectors
COPY queues ./queues
# `start` without DATABASE_URL keeps its embedded database here (mount a volume to keep it).
RUN mkdir -p /app/.data && chown node:node /app/.data
# Node's compile cache, warm in the image: every start reuses the stripped TypeScript and V8's compiled
# code of the CLI's modules instead of loading the stripper and compiling them again (loading the
# service: 0.55 s and 157 MB instead of 0.8 s and 169 MB). `--help` loads every command's modules.
# V8 keeps its code per set of the flags that change code (a directory each); the worker's heap flags
# are not among them, so one warm-up serves every role.
ENV NODE_COMPILE_CACHE=/app/.compile-cache
RUN node src/cli.ts --help > /dev/null && chown -R node:node /app/.compile-cache
USER node
EXPOSE 3000
# Liveness of the HTTP roles (start, serve). The worker role serves no HTTP: disable it there
# (docker-compose.yml does).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains: stops taking work, lets active jobs finish, flushes pending writes, exits 0.
STOPSIGNAL SIGTERM
CMD ["node", "src/cli.ts", "start"]
