#!/usr/bin/env bash
# Applies the automatic fixes `npm run check` asks for, over the whole tree: ESLint's (type-only imports
# marked) first, since they move import lines, then Prettier's formatting. What ESLint cannot fix is left
# for a person and listed; the exit status is ESLint's then.
set -uo pipefail
cd "$(dirname "$0")/.."

npx --no-install eslint --fix .
lint=$?
# Prettier is not always idempotent: a first pass can break a member chain that the second joins again
# (https://github.com/prettier/prettier/issues/2803), so write until --check agrees.
for pass in 1 2 3; do
  npx --no-install prettier --write --log-level warn . || exit 1
  npx --no-install prettier --check --log-level silent . && break
done
exit $lint
