#!/usr/bin/env bash
# The figures issue 45 asks for, from the current tree and its debug build (`swift build` first):
# lines of the core target, SessionManager's files and lines, the casts to store protocols left in the core, and
# the public symbols an app sees (SessionKit, SecureStore and SessionKitSupport, which SessionKit re-exports for
# JSONValue; from swift-symbolgraph-extract over the build's modules).
# Usage: scripts/design-figures.sh   (prints one "name: value" line per figure)
set -euo pipefail
cd "$(dirname "$0")/.."
lines() { find "$@" -name '*.swift' -print0 | xargs -0 cat | wc -l; }
echo "core target lines (Sources/SessionKit): $(lines Sources/SessionKit)"
echo "SessionManager files: $(ls Sources/SessionKit/Session/SessionManager*.swift | wc -l), lines: $(cat Sources/SessionKit/Session/SessionManager*.swift | wc -l)"
echo "casts to store protocols in the core: $(grep -rEc 'as[?!] (any )?(Versioned|Async)?SecureStore([^A-Za-z]|$)' Sources/SessionKit | awk -F: '{s+=$2} END {print s}')"
echo "SessionKitTesting files (a public product): $(ls Sources/SessionKitTesting/*.swift | wc -l)"
build=.build/$(uname -m)-unknown-linux-gnu/debug
modules=$build/Modules
extract="$(dirname "$(readlink -f "$(command -v swift)")")/swift-symbolgraph-extract"
if [[ -d $modules && -x $extract ]]; then
    out=$(mktemp -d)
    includes=()
    # C modules: their headers, and the module maps SwiftPM generated for them.
    while read -r dir; do includes+=(-I "$dir"); done < <(
        find .build/checkouts Sources -type d -name include
        find "$build" -maxdepth 2 -name module.modulemap -exec dirname {} \;
    )
    for module in SessionKit SecureStore SessionKitSupport; do
        "$extract" -module-name "$module" -I "$modules" "${includes[@]}" -target "$(uname -m)-unknown-linux-gnu" \
            -minimum-access-level public -output-dir "$out" >/dev/null 2>&1 || true
    done
    python3 - "$out" <<'PY'
import glob, json, sys
total = 0
for path in sorted(glob.glob(sys.argv[1] + "/*.symbols.json")):
    if "@" in path:
        continue
    count = len(json.load(open(path))["symbols"])
    total += count
    print("public symbols, %s: %d" % (path.rsplit("/", 1)[1].split(".")[0], count))
print("public symbols an app sees (SessionKit + SecureStore + SessionKitSupport): %d" % total)
PY
    rm -rf "$out"
else
    echo "public symbols: build first (swift build), then run again"
fi
