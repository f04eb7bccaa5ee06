#!/usr/bin/env bash
# Formats the tree with clang-format (14, as on Debian 12). --check: report, change nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.h' '*.cpp')
if [ "${1:-}" = "--check" ]; then
  clang-format --dry-run -Werror $files
else
  clang-format -i $files
fi
