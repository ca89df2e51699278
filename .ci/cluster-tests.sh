#!/usr/bin/env bash
# The cluster-tagged tests (a `// @redis-cluster` line) on a 3-master Redis Cluster from Debian's
# redis-server (.ci/redis-cluster.sh): started when none answers on its ports, stopped afterwards if
# this script started it. Extra arguments go to vitest.
set -euo pipefail
cd "$(dirname "$0")/.."
FIRST="${REDIS_CLUSTER_PORT:-7100}"
started=0
if ! redis-cli -p "$FIRST" cluster info 2>/dev/null | grep -q 'cluster_state:ok'; then started=1; fi
url="$(.ci/redis-cluster.sh start)"
stop() { [ "$started" = 1 ] && .ci/redis-cluster.sh stop || true; }
trap stop EXIT
mapfile -t files < <(grep -rl '^// @redis-cluster:' test --include='*.test.ts' | sort)
echo "Redis Cluster at $url: ${#files[@]} cluster-tagged test files"
REDIS_URL="$url" npx vitest run "${files[@]}" "$@"
