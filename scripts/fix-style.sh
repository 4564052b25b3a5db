#!/usr/bin/env bash
# Applies the automatic fixes `npm run check` asks for, over the whole tree: ESLint's (type-only imports
# marked) first, since they move import lines, then Prettier's formatting. What ESLint cannot fix is left
# for a person and listed at the end; the exit status is ESLint's then.
set -uo pipefail
cd "$(dirname "$0")/.."

npx --no-install eslint --fix .
lint=$?
npx --no-install prettier --write --log-level warn . || exit 1
exit $lint
