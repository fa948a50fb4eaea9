# The Brine image: one image for the master, the minions and the CLI.
#   docker build -t brine .
#   docker run --rm brine --help
FROM node:24-bookworm-slim
WORKDIR /brine
# better-sqlite3 13 ships its Node-API binaries in the package: no compiler needed
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages ./packages
RUN npm ci --no-audit --no-fund && npx tsc -b
COPY config ./config
COPY examples ./examples
RUN mkdir -p /var/lib/brine/master /var/lib/brine/minion
EXPOSE 4506
# the launcher: `brine master` sizes V8's helper threads to the cores
ENTRYPOINT ["/brine/packages/cli/bin/brine"]
CMD ["--help"]
