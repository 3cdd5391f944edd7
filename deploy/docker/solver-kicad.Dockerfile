# A MetaForge worker with KiCad 6.0.11 from Debian bookworm: it serves
# adapter-kicad. The adapter drives KiCad's pcbnew Python module with
# Debian's /usr/bin/python3 (the one the module is built for). KiCad 6 has
# no kicad-cli, so kicad.run_erc answers TOOL_UNAVAILABLE in this image, as
# on any KiCad 6 machine; the other tools work. kicad.generate_schematic
# copies symbols from the symbol libraries (kicad-symbols, 100 MB
# installed); the footprint and 3D libraries are left out: the other tools
# read the libraries embedded in the design files.
#
# Build from the repository root:
#   docker build -f deploy/docker/solver-kicad.Dockerfile -t metaforge/solver-kicad:0.1.0 .
#
# It runs `metaforge worker` for its queues (override CMD to change them)
# against TEMPORAL_ADDRESS. The "docker" solver runtime also starts one
# container per call from this image, with the solver as its entrypoint, no
# network, a read-only root, a 256 MB /tmp and capped memory, CPU and
# processes (internal/solver/docker.go).

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
RUN apt-get update \
	&& apt-get install -y --no-install-recommends ca-certificates python3 kicad kicad-symbols \
	&& rm -rf /var/lib/apt/lists/* \
	&& /usr/bin/python3 -c "import pcbnew" \
	&& test -f /usr/share/kicad/symbols/Device.kicad_sym \
	&& groupadd --system --gid 10001 metaforge \
	&& useradd --system --uid 10001 --gid metaforge --create-home --home-dir /home/metaforge --shell /usr/sbin/nologin metaforge \
	&& install -d -o metaforge -g metaforge /var/lib/metaforge
COPY --from=build /out/metaforge /usr/local/bin/metaforge
USER metaforge
WORKDIR /home/metaforge
ENTRYPOINT ["metaforge", "worker"]
CMD ["--queues", "adapter-kicad", "--data-dir", "/var/lib/metaforge"]
