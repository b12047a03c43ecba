#!/usr/bin/env bash
# Makes a local stand-in for the Dockerfile's base image, for machines that cannot pull images: a Debian bookworm
# root file system (debootstrap, minbase) with this machine's Node binary and npm copied in where the official
# node image keeps them (/usr/local/bin, /usr/local/lib/node_modules/npm) and the official image's `node` user,
# committed under the base image's own name (with this machine's CA file for npm, when npm has one) so `buildah bud --pull=never` builds the real Dockerfile against it.
#
# Usage: make-base-standin.sh IMAGE_NAME   (e.g. docker.io/library/node:20-bookworm-slim)
# Needs root, debootstrap, buildah, and Debian's package mirror. Does nothing when IMAGE_NAME already exists.
set -euo pipefail
image="${1:?usage: make-base-standin.sh IMAGE_NAME}"
if buildah inspect --type image "$image" >/dev/null 2>&1; then
  echo "stand-in base image $image already present"
  exit 0
fi
node_bin="$(command -v node)"
node_major="$("$node_bin" -p 'process.versions.node.split(".")[0]')"
want_major="$(sed -E 's/.*:([0-9]+).*/\1/' <<<"$image")"
if [ "$node_major" != "$want_major" ]; then
  echo "this machine's node is $("$node_bin" --version); $image needs Node $want_major" >&2
  exit 1
fi
npm_dir="$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
work="$(mktemp -d /var/tmp/queen-base-standin.XXXXXX)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
echo "debootstrap bookworm (minbase) from $mirror ..."
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
# What a slim image drops: package caches, lists, documentation.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*
install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
# This machine reaches the npm registry through its own trust store (a TLS-inspecting gateway): the stand-in gets
# the same, for npm only, as an image built on this network would.
cafile="$(npm config get cafile 2>/dev/null || true)"
if [ -n "$cafile" ] && [ "$cafile" != "null" ] && [ "$cafile" != "undefined" ] && [ -f "$cafile" ]; then
  mkdir -p "$rootfs/usr/local/share/standin" "$rootfs/usr/local/etc"
  cp "$cafile" "$rootfs/usr/local/share/standin/ca-certificates.crt"
  echo "cafile=/usr/local/share/standin/ca-certificates.crt" >"$rootfs/usr/local/etc/npmrc"
fi
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$rootfs" /usr/local/bin/node --version >/dev/null
tar -C "$rootfs" --exclude=./dev/* --exclude=./proc/* --exclude=./sys/* -cf "$work/rootfs.tar" .
cat >"$work/Containerfile" <<CONTAINERFILE
FROM scratch
ADD rootfs.tar /
ENV NODE_VERSION=$("$node_bin" -p process.versions.node) PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CMD ["node"]
CONTAINERFILE
buildah bud --isolation chroot --pull=never --format docker --quiet -t "$image" -f "$work/Containerfile" "$work" >/dev/null
echo "stand-in base image $image built (Debian bookworm, node $("$node_bin" --version))"
