#!/usr/bin/env bash
# Fails (exit 1) when a tracked C++ file differs from what clang-format-14 and
# .clang-format make of it, listing the files; --fix rewrites them instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
formatter=${CLANG_FORMAT:-clang-format-14}
command -v "$formatter" > /dev/null || { echo "check-format: $formatter not found (apt-get install clang-format-14)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu')
if [ "${1:-}" = "--fix" ]; then
  "$formatter" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$formatter" --dry-run -Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) differ from $formatter's output (run scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} C++ files formatted as .clang-format says"
