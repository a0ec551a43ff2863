#!/usr/bin/env bash
# The one place kernelcount-validate's header-only dependencies come from on a GPU machine (it
# has no package registry): Debian 12's nlohmann-json3-dev (3.11.2), libcli11-dev (2.1.2) and
# zlib1g-dev's zlib.h (the machine has the library, libz.so.1),
# downloaded here with apt-get (no install, no root needed) and unpacked into .carry/include
# (ignored by git). Name .carry in the device call's carry list; validate/device_build.sh
# then builds with these headers and no others.
#   validate/fetch_headers.sh [DEST]        (default: .carry/include in the checkout)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${1:-$ROOT/.carry/include}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download nlohmann-json3-dev libcli11-dev zlib1g-dev >/dev/null)
for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$tmp/x"; done
[ -f "$tmp/x/usr/include/nlohmann/json.hpp" ] && [ -f "$tmp/x/usr/include/CLI/CLI.hpp" ] &&
  [ -f "$tmp/x/usr/include/zlib.h" ] ||
  { echo "fetch_headers: the packages lack nlohmann/json.hpp, CLI/CLI.hpp or zlib.h" >&2; exit 1; }
rm -rf "$DEST/nlohmann" "$DEST/CLI" "$DEST/zlib.h" "$DEST/zconf.h"
mkdir -p "$DEST"
cp -r "$tmp/x/usr/include/nlohmann" "$tmp/x/usr/include/CLI" "$tmp/x/usr/include/zlib.h" "$DEST/"
# Debian keeps zconf.h in the multiarch folder.
cp "$(find "$tmp/x/usr/include" -name zconf.h | head -1)" "$DEST/"
ls "$tmp"/*.deb | xargs -n1 basename >"$DEST/PACKAGES"
echo "fetch_headers: $(tr '\n' ' ' <"$DEST/PACKAGES")-> $DEST"
