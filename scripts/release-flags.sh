#!/usr/bin/env bash
# The `swift build` arguments of sessionctl's release build, one per line: what scripts/install.sh installs and
# Benchmarks/cli.sh measures. The Swift runtime linked statically, a non-PIE executable (no start-up relocations),
# and, where the toolchain has these frontend options, generic types' metadata reached through direct accessors
# instead of mangled names (the runtime then neither demangles them nor scans every protocol conformance in the
# binary to check their requirements: a third of `token`'s instructions) and each function in a section of its
# own, as the toolchain's own libraries are built (BENCHMARKS.md).
#
#     scripts/release-flags.sh              # the flags of every release product
#     scripts/release-flags.sh --sessionctl # and sessionctl's function layout (scripts/sessionctl.order)
#
# With --sessionctl, the gold linker (Swift's default on Linux) places the functions a `token` run executes
# together, in scripts/sessionctl.order (written by scripts/sessionctl-order.sh): the kernel then maps them with a
# few page faults instead of one for nearly every function, from wherever they sit in a 50 MB binary. A name the
# binary no longer has is skipped, so a list that has grown old costs speed, never correctness.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
printf '%s\n' -c release --static-swift-stdlib -Xlinker -no-pie
frontend_help=$(swiftc -frontend -help-hidden 2>/dev/null || true)
for option in -disable-concrete-type-metadata-mangled-name-accessors -function-sections; do
    if [[ "$frontend_help" == *"$option"* ]]; then
        printf '%s\n' -Xswiftc -Xfrontend -Xswiftc "$option"
    fi
done
if [ "${1:-}" = --sessionctl ] && [ -f "$root/scripts/sessionctl.order" ] && command -v ld.gold >/dev/null; then
    printf '%s\n' -Xlinker "--section-ordering-file=$root/scripts/sessionctl.order"
fi
