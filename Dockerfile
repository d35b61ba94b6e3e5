# One image for every role: `node bin/tracehouse.js ingest|stream|query|start|migrate|keys …`.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY core ./core
COPY schemas ./schemas
COPY sql ./sql
COPY ingest ./ingest
COPY stream ./stream
COPY query ./query
COPY cli ./cli
COPY dashboard ./dashboard
COPY bench ./bench
COPY test ./test
# `npm ci` builds through the `prepare` script; dev dependencies are dropped afterwards
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund && rm -rf test bench dist/test dist/bench

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 4318 8080 9464
ENTRYPOINT ["node", "bin/tracehouse.js"]
CMD ["start"]
