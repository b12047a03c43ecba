#!/usr/bin/env bash
# Runs the suite (`npm ci && npm test`) on another Node.js major, e.g. `scripts/test-on-node.sh 24`: the Node
# build comes from the npm registry's `node` package (its preinstall fetches the platform's binary), installed
# into a temporary directory and put first on PATH, so npm and every test process run on it.
set -euo pipefail
major=${1:?usage: scripts/test-on-node.sh MAJOR   (22, 24, ...)}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node@$major"
export PATH="$dir/node_modules/.bin:$PATH"
echo "== the suite on Node $(node --version)"
cd "$root"
# The Citus runs are left out here (QUEEN_TEST_WITHOUT_CITUS): SQL on Citus does not depend on the Node line.
npm ci && QUEEN_TEST_WITHOUT_CITUS=1 npm test
