# syntax=docker/dockerfile:1
#
# The registrar's container image: a build stage that compiles the workspace and bundles the
# CLI into one file with esbuild (packages/cli/bundle.mjs: every dependency inside, source map
# beside it), and a runtime stage with just Node and that file, running as a non-root user.
#
#   docker build -t ghcr.io/argocd-cluster-registrar/argocd-cluster-registrar:0.3.0-alpha.0 .
#
# Checked without a Docker engine by charts/argocd-cluster-registrar/tests/image.test.ts, which
# lints this file and replays the build stage's COPY/RUN steps to prove the bundle starts.

# Node 24 LTS, pinned to a release and to the digest of that tag's image index (linux/amd64
# and linux/arm64 among its platforms), so neither a rebuild nor a re-pushed tag changes the
# runtime under us. The tag says which release it is; the digest alone decides what is pulled.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:0e0ff40c39bc087845bfb27465a0df4ea419520094bc35842ff83dd8cbe6f9b6

FROM ${NODE_IMAGE} AS build
# pnpm at the exact version package.json pins in `packageManager`.
RUN corepack enable
WORKDIR /src

# Manifests first: the dependency layer is rebuilt only when they change.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
COPY packages/core/package.json packages/core/
COPY packages/k8s-adapter/package.json packages/k8s-adapter/
COPY packages/cli/package.json packages/cli/
COPY packages/testkit/package.json packages/testkit/
RUN pnpm install --frozen-lockfile

COPY tsconfig.base.json tsconfig.json ./
COPY packages/core packages/core
COPY packages/k8s-adapter packages/k8s-adapter
COPY packages/cli packages/cli
# The CLI's build ends with the bundle (packages/cli/dist/bundle/).
RUN pnpm --filter "argocd-cluster-registrar..." run build
# The bundle, its source map, the licences of what it holds and an SPDX document of the npm
# packages inside it (the SBOM scanner finds no node_modules to read; it reads *.spdx.json): no
# node_modules, TypeScript, vitest or dev tooling in the image. The map is not loaded unless
# asked for (NODE_OPTIONS=--enable-source-maps): parsing it costs memory on every start.
RUN mkdir -p /app && cp packages/cli/dist/bundle/argocd-cluster-registrar.mjs \
      packages/cli/dist/bundle/argocd-cluster-registrar.mjs.map \
      packages/cli/dist/bundle/argocd-cluster-registrar.spdx.json \
      packages/cli/dist/bundle/THIRD-PARTY-LICENSES.txt /app/

FROM ${NODE_IMAGE} AS runtime
# Only `node` is needed at run time: drop npm, npx, corepack and yarn (size, attack surface).
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx \
      /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
ENV NODE_ENV=production
# Two malloc arenas instead of glibc's 8 per core: the process is one JavaScript thread plus a
# few helpers, and every extra arena keeps freed memory of its own (measured: 10 MiB less
# resident memory at 1,000 clusters with one arena).
ENV MALLOC_ARENA_MAX=2
# A fixed mmap threshold (glibc's initial 128 KiB) instead of the one glibc raises to the size
# of the largest block freed so far: without it, once the first page of a list has been freed,
# every later list's page-sized buffers (MiBs each) come from the malloc heap instead, and the
# heap keeps what they leave behind (measured: +12 MiB of the brk heap over the first six
# re-lists at 1,000 clusters, none of it reachable). Mapped blocks go back to the kernel when
# freed.
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
# Owned by root and not writable by the runtime user: the process cannot alter its own code.
COPY --from=build /app /app
LABEL org.opencontainers.image.title="argocd-cluster-registrar" \
      org.opencontainers.image.description="Registers k3k, vcluster, Kamaji and Cluster API child clusters with ArgoCD" \
      org.opencontainers.image.source="https://github.com/argocd-cluster-registrar/argocd-cluster-registrar" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="0.3.0-alpha.0"
# 65532: the conventional "nonroot" uid/gid (as in distroless), matching the chart's securityContext.
USER 65532:65532
# Metrics (/metrics) and health (/healthz, /readyz).
EXPOSE 8080 8081
# The heap is capped at 60 % of the memory the container may use (its cgroup limit, the chart's
# resources.limits.memory): without a cap V8 sizes the heap from nearly the whole limit and
# defers collection until the kernel kills the pod. The other ~40 % is what is not heap: the
# Node binary's pages (~45 MiB), malloc, TLS and thread stacks (~30 MiB), so with 75 % a full
# heap plus the rest came to more than the limit (measured: 271 MiB peak at 10,000 clusters
# under 256 MiB, 225 MiB with 60 %).
# --jitless: V8 interprets and never compiles to machine code. The daemon waits on the API server
# nearly all the time, so it costs little: cold start 3.4 s instead of 3.2 s at 1,000 clusters,
# 36 s instead of 18 s at 10,000; idle CPU unchanged. It saves 20 MiB at 1,000 clusters (the
# compilers' code pages, the code they make and their background jobs' memory, which also made
# resident memory swing from run to run: 116-143 MiB with the JIT, 95-98 MiB without), and no
# memory is executable at run time. Node marks the flag experimental (it is V8's); the image pins
# its Node release, and the image tests start the bundle with these flags on that release.
# --optimize-for-size: V8 gives freed heap pages back only through its memory reducer, and on
# this Node release the reducer never finds the daemon idle (V8 reads the embedder's allocation
# rate of zero as a high one: --trace-memory-reducer says "high alloc" every 8 s for as long as
# the daemon runs), so the heap kept what the cold start grew. Favouring size, V8 runs the
# reducer: steady RSS at 1,000 clusters 95-99 MiB -> 82-85 MiB, and the cold start was no slower.
# --no-separate-gc-phases: on this Node release V8 runs no young-generation collection while it
# marks the old one, and lets the young generation grow meanwhile, so everything allocated in
# the 50-70 ms of a marking cycle stays until it ends: at 1,000 clusters the young generation
# reached 16 MiB and the peak 100-123 MiB in about half the cold starts (91 MiB in the others),
# over the 96 MiB budget. With the flag, scavenges go on during marking (V8's behaviour for
# years before) and the young generation stays at its 2 MiB.
ENTRYPOINT ["node", "--jitless", "--max-old-space-size-percentage=60", "--optimize-for-size", "--no-separate-gc-phases", "/app/argocd-cluster-registrar.mjs"]
