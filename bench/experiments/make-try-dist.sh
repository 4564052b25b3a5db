#!/bin/sh
# Builds bench/.exp/dist: a copy of dist/ with lens/scope.js replaced by the OTel-context version
# (experiments/scope-otel-context.js), for `node bench/calls.mjs --try bench/.exp/dist`.
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$here/.exp/dist"
mkdir -p "$here/.exp"
cp -r "$here/../dist" "$here/.exp/dist"
cp "$here/experiments/scope-otel-context.js" "$here/.exp/dist/lens/scope.js"
echo "$here/.exp/dist"
