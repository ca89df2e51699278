#!/usr/bin/env bash
# A 3-master Redis Cluster from Debian's redis-server, for the cluster-tagged tests:
#   .ci/redis-cluster.sh start   # ports 7100-7102 (REDIS_CLUSTER_PORT=<first> to move), data under /tmp
#   .ci/redis-cluster.sh stop
# noeviction and AOF on every node, as the service needs. Prints the REDIS_URL to use.
set -euo pipefail
FIRST="${REDIS_CLUSTER_PORT:-7100}"
PORTS=("$FIRST" "$((FIRST + 1))" "$((FIRST + 2))")
DIR="${REDIS_CLUSTER_DIR:-/tmp/bis-redis-cluster-$FIRST}"

up() { redis-cli -p "$1" ping 2>/dev/null | grep -q PONG; }

case "${1:-start}" in
  start)
    if up "${PORTS[0]}" && redis-cli -p "${PORTS[0]}" cluster info 2>/dev/null | grep -q 'cluster_state:ok'; then
      echo "redis://127.0.0.1:${PORTS[0]}?cluster=true"
      exit 0
    fi
    for port in "${PORTS[@]}"; do
      mkdir -p "$DIR/$port"
      up "$port" || redis-server --port "$port" --bind 127.0.0.1 --dir "$DIR/$port" --daemonize yes \
        --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000 \
        --appendonly yes --appendfsync everysec --save "" --maxmemory-policy noeviction \
        --logfile "$DIR/$port/redis.log" --pidfile "$DIR/$port/redis.pid"
    done
    for port in "${PORTS[@]}"; do
      for _ in $(seq 1 50); do up "$port" && break; sleep 0.1; done
      up "$port" || { echo "redis-server on port $port does not answer (see $DIR/$port/redis.log)" >&2; exit 1; }
    done
    if ! redis-cli -p "${PORTS[0]}" cluster info | grep -q 'cluster_slots_assigned:16384'; then
      redis-cli --cluster create "${PORTS[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes >/dev/null
    fi
    for _ in $(seq 1 100); do
      redis-cli -p "${PORTS[0]}" cluster info | grep -q 'cluster_state:ok' && break
      sleep 0.1
    done
    redis-cli -p "${PORTS[0]}" cluster info | grep -q 'cluster_state:ok' \
      || { echo "the cluster on ${PORTS[*]} did not reach state ok" >&2; exit 1; }
    echo "redis://127.0.0.1:${PORTS[0]}?cluster=true"
    ;;
  stop)
    for port in "${PORTS[@]}"; do
      pid="$(cat "$DIR/$port/redis.pid" 2>/dev/null || true)"
      [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    done
    rm -rf "$DIR"
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
