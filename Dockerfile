# syntax=docker/dockerfile:1
# Buyer Intel Sync. One image, three roles: `start` (default: HTTP + worker), `serve`, `worker`;
# `doctor` checks a deployment. Node 24 runs the TypeScript sources directly (type stripping), so the
# image needs no build step and no dev dependencies.

# --- production dependencies only --------------------------------------------------------------
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime ------------------------------------------------------------------------------------
FROM node:24-slim
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
USER node
EXPOSE 3000
# Liveness of the HTTP roles (start, serve). The worker role serves no HTTP: disable it there
# (docker-compose.yml does).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM drains: stops taking work, lets active jobs finish, flushes pending writes, exits 0.
STOPSIGNAL SIGTERM
CMD ["node", "src/cli.ts", "start"]
