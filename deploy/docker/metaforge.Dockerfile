# MetaForge's one binary on Debian, with no solver: `metaforge serve` (MCP,
# dashboard, REST) and the workers that need none (the workflow queue
# "metaforge" and the in-process adapters: twin, flows, power, health, ...).
# The solver images (solver-*.Dockerfile) are this plus their solvers.
#
# Build from the repository root:
#   docker build -f deploy/docker/metaforge.Dockerfile -t metaforge/metaforge:0.1.0 .

# ---- build ------------------------------------------------------------------
# The same stage, word for word, opens every image in this folder, so a
# build of several images compiles MetaForge once (the layer cache).
# CGO is off: the embedded Temporal's SQLite is modernc.org/sqlite (pure Go)
# and nothing else needs cgo, so the binary is static and runs on any base.
FROM golang:1.26 AS build
# The golang images set GOTOOLCHAIN=local; MetaForge needs go1.27.3
# (go.mod), which the go command fetches through the module proxy.
ENV GOTOOLCHAIN=go1.27.3 CGO_ENABLED=0
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# No VCS stamp: the context may carry a .git that git cannot read here,
# and the version is a constant in cmd/metaforge.
RUN go build -trimpath -buildvcs=false -ldflags="-s -w" -o /out/metaforge ./cmd/metaforge

# ---- run --------------------------------------------------------------------
FROM debian:bookworm-slim
# curl is for the compose healthcheck of `metaforge serve` (GET /healthz);
# poppler-utils (pdftotext, pdfinfo) reads the PDFs knowledge.ingest and
# web.fetch are given, on the knowledge queue and the workflow queue that
# runs each ingest's batches.
RUN apt-get update \
	&& apt-get install -y --no-install-recommends ca-certificates curl poppler-utils \
	&& rm -rf /var/lib/apt/lists/* \
	&& groupadd --system --gid 10001 metaforge \
	&& useradd --system --uid 10001 --gid metaforge --create-home --home-dir /home/metaforge --shell /usr/sbin/nologin metaforge \
	&& install -d -o metaforge -g metaforge /var/lib/metaforge
COPY --from=build /out/metaforge /usr/local/bin/metaforge
# Every image in this folder runs as uid 10001 and keeps its data in
# /var/lib/metaforge, so a volume shared between them is writable by all.
USER metaforge
WORKDIR /home/metaforge
EXPOSE 8765
ENTRYPOINT ["metaforge"]
CMD ["serve", "--no-worker", "--http-addr", "0.0.0.0:8765", "--data-dir", "/var/lib/metaforge"]
