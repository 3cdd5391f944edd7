# A MetaForge worker with FreeCAD 0.20 headless (Debian bookworm's
# freecad-python3) and gmsh: it serves adapter-freecad and adapter-cad.
# FreeCAD's compiled module is built for Debian's /usr/bin/python3; its
# folders (/usr/lib/freecad/lib, /usr/share/freecad/Mod) are found by the
# adapter (adapters/freecad/install.go). gmsh is here because
# freecad.generate_mesh bakes the part's placements and has the gmsh
# adapter, in this process, mesh it; and cad.* resolves to FreeCAD here.
#
# This worker also holds CAD editing sessions: a CadSession workflow pins
# its activities to one such worker with a Temporal worker session, and a
# FreeCAD process per session lives beside the worker, dying with it. Run
# several, and a session whose worker dies is rebuilt on another from its
# saved document and journal (both in the shared /var/lib/metaforge).
#
# Build from the repository root:
#   docker build -f deploy/docker/solver-freecad.Dockerfile -t metaforge/solver-freecad:0.1.0 .

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
	&& apt-get install -y --no-install-recommends ca-certificates python3 freecad-python3 libvtk9.1 gmsh \
	&& rm -rf /var/lib/apt/lists/* \
	&& PYTHONPATH=/usr/lib/freecad/lib /usr/bin/python3 -c "import FreeCAD, Part; print('FreeCAD', '.'.join(FreeCAD.Version()[:3]))" \
	&& groupadd --system --gid 10001 metaforge \
	&& useradd --system --uid 10001 --gid metaforge --create-home --home-dir /home/metaforge --shell /usr/sbin/nologin metaforge \
	&& install -d -o metaforge -g metaforge /var/lib/metaforge
COPY --from=build /out/metaforge /usr/local/bin/metaforge
USER metaforge
WORKDIR /home/metaforge
ENTRYPOINT ["metaforge", "worker"]
CMD ["--queues", "adapter-freecad,adapter-cad", "--data-dir", "/var/lib/metaforge"]
