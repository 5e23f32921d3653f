#!/bin/sh
# Builds what deploy/compose.yaml runs: the four Debian bases (deploy/base.sh) and the portal's
# image (deploy/Containerfile), each only when what makes it changed. The portal's image is
# labelled with a hash of every file the build copies plus the bases' ids; an image of that name
# with the same label is kept as it is. FORCE=1 rebuilds everything.
#
# Environment: ENGINE (podman or docker), IMAGE (default localhost/portal:latest),
# BUILD_NETWORK (default host: the build stage downloads npm packages, and some machines give
# containers no way out but the host's network; set it empty for the engine's default), and
# what deploy/base.sh reads (DEBIAN_SUITE, DEBIAN_MIRROR, DEBIAN_SNAPSHOT).
set -eu

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
engine="${ENGINE:-$(command -v podman >/dev/null 2>&1 && echo podman || echo docker)}"
export ENGINE="$engine"
image="${IMAGE:-localhost/portal:latest}"
suite="${DEBIAN_SUITE:-trixie}"
network="${BUILD_NETWORK-host}"

for flavour in node build postgres redis; do
  deploy/base.sh "$flavour"
done

inputs="package.json package-lock.json tsconfig.json scripts contract src web db deploy/image deploy/Containerfile .containerignore"
hash="$(
  {
    # shellcheck disable=SC2086 # the list above is word-split on purpose
    find $inputs -type f -not -path 'web/dist/*' -not -path '*/node_modules/*' | LC_ALL=C sort |
      while IFS= read -r file; do sha256sum "$file"; done
    for flavour in node build; do
      "$engine" image inspect --format '{{ .Id }}' "localhost/portal-base:$flavour-$suite"
    done
  } | sha256sum | cut -c1-16
)"

current="$("$engine" image inspect --format '{{ index .Config.Labels "portal.build.hash" }}' "$image" 2>/dev/null || true)"
if [ "$current" = "$hash" ] && [ -z "${FORCE:-}" ]; then
  echo "$image is up to date ($hash)"
  exit 0
fi

set -- --file deploy/Containerfile --tag "$image" --label "portal.build.hash=$hash" \
  --build-arg "DEBIAN_SUITE=$suite"
# Podman writes OCI images by default, which have no HEALTHCHECK: the Docker format keeps it.
[ "$engine" != podman ] || set -- "$@" --format docker
[ -z "$network" ] || set -- "$@" --network "$network"
"$engine" build "$@" .
echo "$image built ($hash)"
