# The tabprobe command line in a container, for cluster runs (deploy/kubernetes/): only the
# native CLI, built for speed with the release profile. Build from the repository root:
#
#   docker build -t registry.example/tabprobe:0.1.0 .
#
# The toolchain is the one rust-toolchain.toml pins (rustup in the build image fetches it);
# crates come from the Rust crate registry as Cargo.lock pins them.
FROM rust:1.95.0-slim-bookworm AS build
WORKDIR /src
COPY . .
# `--features vulkan`: `--backend vulkan` (SPIR-V) for GPU nodes; docs/clusters.md#gpu-backends.
RUN cargo build --release --locked -p tabprobe-cli --features vulkan

FROM debian:bookworm-slim
# libvulkan1: the loader `--backend vulkan` opens at run time (the GPU driver comes from the
# node, e.g. the NVIDIA container toolkit); the default CPU backend needs nothing.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libvulkan1 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/tabprobe /usr/local/bin/tabprobe
# Not root: the shard volume must be writable by this user (or set the pod's fsGroup).
USER 65534:65534
CMD ["tabprobe", "--help"]
