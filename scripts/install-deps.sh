#!/usr/bin/env bash
# Installs what building and testing cuzk needs on a Debian/Ubuntu machine.
# The core library, the GPU backend and cuzk-bench need only a C compiler and
# CMake (and the CUDA toolkit for the GPU); the rest is for tests and the daemon.
# The CUDA toolkit is optional: the GPU backend is built when nvcc is found.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
# gRPC core, protobuf-c and pkg-config: the optional daemon (built when they are found).
# libmicrohttpd: the daemon's optional HTTP GET /status (daemon.status_listen); curl tests it.
pkgs=(build-essential cmake clang libclang-rt-14-dev pkg-config libgrpc-dev libprotobuf-c-dev protobuf-c-compiler
  libmicrohttpd-dev curl)
pkgs+=(clang-format) # scripts/check-format.sh
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
else
  echo "install-deps: everything is already installed"
fi
