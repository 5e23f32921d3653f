#!/bin/sh
# Base images made from Debian packages alone (no registry pull): mmdebstrap writes a minimal
# root file system of one pinned Debian release, and the container engine imports it.
#
#   deploy/base.sh node      nodejs + ca-certificates: the portal's runtime stage
#   deploy/base.sh build     the same plus npm: the build stage (never shipped)
#   deploy/base.sh postgres  Debian's postgresql, started by deploy/base/postgres-entrypoint.sh
#   deploy/base.sh redis     Debian's redis-server, started by deploy/base/redis-entrypoint.sh
#
# Each image is labelled with a hash of what made it (this script, the flavour's packages, its
# entry script, the release and the mirror): when an image of that name already carries the same
# hash, nothing is rebuilt. FORCE=1 rebuilds anyway.
#
# Environment: ENGINE (podman or docker; default: podman if present), DEBIAN_SUITE (default
# trixie, Debian 13), DEBIAN_MIRROR (default http://deb.debian.org/debian), DEBIAN_SNAPSHOT (a
# snapshot.debian.org timestamp such as 20261201T000000Z: the exact same package versions on
# every build, instead of the release's current point release), IMAGE_PREFIX (default
# localhost/portal-base).
set -eu

flavour="${1:?usage: deploy/base.sh node|build|postgres|redis}"
here="$(cd "$(dirname "$0")" && pwd)"
engine="${ENGINE:-$(command -v podman >/dev/null 2>&1 && echo podman || echo docker)}"
suite="${DEBIAN_SUITE:-trixie}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
if [ -n "${DEBIAN_SNAPSHOT:-}" ]; then
  mirror="http://snapshot.debian.org/archive/debian/${DEBIAN_SNAPSHOT}"
fi
image="${IMAGE_PREFIX:-localhost/portal-base}:${flavour}-${suite}"

entry=""
case "$flavour" in
  node)
    packages="ca-certificates,nodejs"
    changes="CMD [\"node\"]"
    ;;
  build)
    packages="ca-certificates,nodejs,npm"
    changes="CMD [\"node\"]"
    ;;
  postgres)
    packages="postgresql"
    entry="$here/base/postgres-entrypoint.sh"
    ;;
  redis)
    packages="redis-server"
    entry="$here/base/redis-entrypoint.sh"
    ;;
  *)
    echo "unknown flavour: $flavour (node, build, postgres or redis)" >&2
    exit 2
    ;;
esac

hash="$(
  {
    cat "$0"
    [ -z "$entry" ] || cat "$entry"
    [ "$flavour" != build ] || cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true
    echo "$flavour $suite $mirror $packages"
  } | sha256sum | cut -c1-16
)"

current="$("$engine" image inspect --format '{{ index .Config.Labels "portal.base.hash" }}' "$image" 2>/dev/null || true)"
if [ "$current" = "$hash" ] && [ -z "${FORCE:-}" ]; then
  echo "$image is up to date ($hash)"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Documentation, manual pages and translations are of no use in a container: excluded as dpkg
# unpacks them (the copyright files stay). The apt lists are removed at the end.
set -- \
  --variant=minbase \
  --include="$packages" \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*'

case "$flavour" in
  build)
    # The build stage downloads the npm packages. Where the network passes through a proxy that
    # inspects TLS, the machine trusts its certificate authority in /usr/local/share/
    # ca-certificates: the build base (never shipped) trusts the same ones, the runtime does not.
    for ca in /usr/local/share/ca-certificates/*.crt; do
      [ -f "$ca" ] || continue
      set -- "$@" --customize-hook="copy-in $ca /usr/local/share/ca-certificates"
    done
    set -- "$@" --customize-hook='chroot "$1" update-ca-certificates >/dev/null'
    ;;
  postgres)
    # Data on /var/lib/postgresql/data, owned by the postgres user the package made: a named
    # volume mounted there starts with that ownership. The entry script initialises it once.
    set -- "$@" \
      --customize-hook='mkdir -p "$1"/var/lib/postgresql/data' \
      --customize-hook='chroot "$1" chown postgres:postgres /var/lib/postgresql/data' \
      --customize-hook="copy-in $entry /usr/local/bin"
    changes="ENV PATH=/usr/lib/postgresql/MAJOR/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ENV PGDATA=/var/lib/postgresql/data
USER postgres
STOPSIGNAL SIGINT
ENTRYPOINT [\"/bin/sh\", \"/usr/local/bin/postgres-entrypoint.sh\"]"
    ;;
  redis)
    set -- "$@" --customize-hook="copy-in $entry /usr/local/bin"
    changes="USER redis
ENTRYPOINT [\"/bin/sh\", \"/usr/local/bin/redis-entrypoint.sh\"]"
    ;;
esac

echo "building $image from Debian $suite ($packages)"
mmdebstrap "$@" "$suite" "$work/root.tar" "$mirror"

if [ "$flavour" = postgres ]; then
  # Debian puts the server under /usr/lib/postgresql/<major>/bin, outside the PATH.
  major="$(tar -tf "$work/root.tar" | sed -n 's|^\./usr/lib/postgresql/\([0-9][0-9]*\)/bin/postgres$|\1|p' | head -n1)"
  [ -n "$major" ] || { echo "no PostgreSQL server in the image" >&2; exit 1; }
  changes="$(echo "$changes" | sed "s|MAJOR|$major|")"
fi

# One --change per line of $changes, then the label that lets the next run skip all this.
set --
newline='
'
old_ifs="$IFS"
IFS="$newline"
for change in $changes; do
  set -- "$@" --change "$change"
done
IFS="$old_ifs"
"$engine" import "$@" --change "LABEL portal.base.hash=$hash" "$work/root.tar" "$image" >/dev/null
echo "$image built ($hash)"
