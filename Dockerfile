# Node 24, a long-term-support line that every dependency supports (several ask for Node 22 or later).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY migrations ./migrations
# Type check what ships (tsc), then the build the service runs from (SWC, with non-TypeScript assets copied).
# The optional dependencies are the embedded database's PostgreSQL binaries (60 MB): production uses DATABASE_URL.
RUN npx tsc --noEmit -p tsconfig.build.json && npm run build && npm prune --omit=dev --omit=optional

FROM node:24-bookworm-slim
WORKDIR /app
# Production mode: HTTPS required (behind a TLS-terminating proxy), private webhook targets refused,
# /metrics closed unless METRICS_TOKEN is set. The service refuses to start without PUBLIC_BASE_URL
# and SECRETS_KEY (docker run -e PUBLIC_BASE_URL=https://api.example.com -e SECRETS_KEY=... ...);
# DATABASE_URL is expected.
ENV NODE_ENV=production
ENV HOST=0.0.0.0
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# The service runs as the image's unprivileged `node` user, never root. Local file storage (FILES_DIR,
# ./data/files) is created owned by it, so a volume mounted there starts writable.
RUN mkdir -p /app/data/files && chown -R node:node /app/data
USER node
EXPOSE 3000
CMD ["node", "dist/src/main.js"]
