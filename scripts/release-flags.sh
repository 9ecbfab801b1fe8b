#!/usr/bin/env bash
# The `swift build` arguments of sessionctl's release build, one per line: what scripts/install.sh installs and
# Benchmarks/cli.sh measures. The Swift runtime linked statically, a non-PIE executable (no start-up relocations),
# and, where the toolchain has that frontend option, generic types' metadata reached through direct accessors
# instead of mangled names: the runtime then neither demangles them nor scans every protocol conformance in the
# binary to check their requirements, a third of `token`'s instructions (BENCHMARKS.md).
set -euo pipefail
printf '%s\n' -c release --static-swift-stdlib -Xlinker -no-pie
accessors=-disable-concrete-type-metadata-mangled-name-accessors
if [[ "$(swiftc -frontend -help-hidden 2>/dev/null || true)" == *"$accessors"* ]]; then
    printf '%s\n' -Xswiftc -Xfrontend -Xswiftc "$accessors"
fi
