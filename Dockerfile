# paystorm and its reference service in one image: `serve` by default, `run` for the harness.
FROM node:20-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first, so source edits reuse this layer (npm ci's prepare finds no src/ yet
# and skips the build; it runs below).
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY scenarios ./scenarios
# The compiled CLI (dist/cli, with source maps): starts without compiling TypeScript.
RUN npm run -s build
RUN mkdir -p reports

# 4010 the service API, 4011 its sandbox processor, 4020 paystorm's webhook receiver.
EXPOSE 4010 4011 4020

ENTRYPOINT ["node", "bin/paystorm.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "4010", "--upstream-port", "4011"]
