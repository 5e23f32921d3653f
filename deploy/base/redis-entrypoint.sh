#!/bin/sh
# Redis in the container, in the foreground as PID 1. The password (REDIS_PASSWORD, required)
# goes in on standard input as configuration, not on the command line where `ps` would show it.
# Nothing is persisted: the portal keeps only rate-limit counters there.
set -eu
: "${REDIS_PASSWORD:?REDIS_PASSWORD is required}"
exec redis-server - <<CONF
bind * -::*
port ${REDIS_PORT:-6379}
protected-mode no
requirepass ${REDIS_PASSWORD}
save ""
appendonly no
CONF
