#!/usr/bin/env bash
# Fetch the web app's vendored libraries again from the npm registry (`npm pack`), check each
# tarball against the registry integrity in web/vendor/VENDOR.json, and compare (or, with
# --write, replace) the committed files. Nothing is built: the files are copied as published.
set -euo pipefail
cd "$(dirname "$0")/.."
manifest=web/vendor/VENDOR.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
python3 - "$manifest" > "$work/list" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["packages"]:
    print(p["name"], p["version"], p["integrity"], p["from"], p["file"], p["licence_file"])
PY
while read -r name version integrity from file licence; do
  tarball=$(cd "$work" && npm pack --silent "$name@$version")
  got="sha512-$(openssl dgst -sha512 -binary "$work/$tarball" | base64 -w0)"
  [ "$got" = "$integrity" ] || { echo "$name@$version: tarball integrity differs"; exit 1; }
  mkdir -p "$work/$name" && tar xzf "$work/$tarball" -C "$work/$name"
  if [ "${1:-}" = "--write" ]; then
    cp "$work/$name/package/$from" "web/vendor/$file"
    cp "$work/$name/package/LICENSE" "web/vendor/$licence"
  elif cmp -s "$work/$name/package/$from" "web/vendor/$file"; then
    echo "$name@$version: web/vendor/$file matches the registry"
  else
    echo "$name@$version: web/vendor/$file differs from the registry"; status=1
  fi
done < "$work/list"
exit $status
