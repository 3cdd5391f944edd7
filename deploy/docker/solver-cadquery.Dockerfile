# A MetaForge worker with CadQuery 2.8, PyBullet 3.2.7 and usd-core 26.11
# (PyPI, pinned as deploy/install-solvers.sh pins them) in a virtual
# environment on Debian bookworm's Python 3.11: it serves adapter-cadquery,
# adapter-physics, adapter-omniverse_usd and adapter-gazebo (libsdformat 12
# and its checker, built in a stage of its own). The cadquery adapter's kernel
# runs in that Python (METAFORGE_CADQUERY_PYTHON), and so do the PyBullet
# simulations (METAFORGE_PHYSICS_PYTHON) of physics.run_simulation and
# cadquery.validate_physics_stability, and omniverse_usd's one-shot
# scripts (METAFORGE_USD_PYTHON).
#
# Build from the repository root:
#   docker build -f deploy/docker/solver-cadquery.Dockerfile -t metaforge/solver-cadquery:0.1.0 .
#
# It runs `metaforge worker` for its queues (override CMD to change them)
# against TEMPORAL_ADDRESS. CadQuery runs in a warm Python kernel beside the
# worker, not as a program per call, so the "docker" solver runtime does not
# use this image; the kernel confines each script itself (its own process
# group, resource limits, and a network namespace and Landlock rules where
# the kernel allows them).

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

# ---- sdfcheck ---------------------------------------------------------------
# gazebo.validate_world's libsdformat checker, built against Debian's
# libsdformat 12 (Debian has no `gz sdf` command).
FROM debian:bookworm-slim AS sdfcheck
RUN apt-get update \
	&& apt-get install -y --no-install-recommends g++ pkg-config libsdformat-dev \
	&& rm -rf /var/lib/apt/lists/*
COPY deploy/sdfcheck /src/sdfcheck
RUN bash /src/sdfcheck/build.sh /out/metaforge-sdfcheck

# ---- run --------------------------------------------------------------------
FROM debian:bookworm-slim
# OCP (CadQuery's OpenCASCADE) links libGL, libX11 and libexpat from the
# system; its other libraries, and VTK's, come in the wheels.
RUN apt-get update \
	&& apt-get install -y --no-install-recommends ca-certificates python3 python3-venv libgl1 libx11-6 libexpat1 libsdformat12-12 sdformat-sdf \
	&& rm -rf /var/lib/apt/lists/* \
	&& groupadd --system --gid 10001 metaforge \
	&& useradd --system --uid 10001 --gid metaforge --create-home --home-dir /home/metaforge --shell /usr/sbin/nologin metaforge \
	&& install -d -o metaforge -g metaforge /var/lib/metaforge
RUN python3 -m venv /opt/cadquery \
	&& /opt/cadquery/bin/pip install --no-cache-dir --disable-pip-version-check cadquery==2.8.0 pybullet==3.2.7 usd-core==26.11 \
	&& /opt/cadquery/bin/python -c "import cadquery, pybullet, pybullet_data; print('cadquery', cadquery.__version__)" \
	&& /opt/cadquery/bin/python -c "from pxr import Usd; print('usd-core', Usd.GetVersion())"
ENV METAFORGE_CADQUERY_PYTHON=/opt/cadquery/bin/python METAFORGE_PHYSICS_PYTHON=/opt/cadquery/bin/python METAFORGE_USD_PYTHON=/opt/cadquery/bin/python
COPY --from=build /out/metaforge /usr/local/bin/metaforge
COPY --from=sdfcheck /out/metaforge-sdfcheck /usr/local/bin/metaforge-sdfcheck
USER metaforge
WORKDIR /home/metaforge
ENTRYPOINT ["metaforge", "worker"]
CMD ["--queues", "adapter-cadquery,adapter-physics,adapter-omniverse_usd,adapter-gazebo", "--data-dir", "/var/lib/metaforge"]
