#!/usr/bin/env bash
# An app that depends on the SessionKit product alone links no SwiftNIO and no AsyncHTTPClient (issue 24).
#
# Builds sessionkit-linkage-probe (Tests/Linkage: an app-like program on SessionKit and SecureStore) without the
# AsyncHTTPClientOnLinux trait, which is how the core is built on Apple platforms (URLSession sends its
# requests; here URLSessionOnLinux stands in for it), and lists its symbols with nm: no SwiftNIO module
# (NIOCore, NIOPosix, NIOSSL, ...), none of NIO's C shims and no AsyncHTTPClient may appear. The same pattern must
# find NIO in the same probe built with the default traits (and URLSessionOnLinux, as scripts/test builds) (on Linux the core then sends its requests with
# AsyncHTTPClient), so that a pattern gone stale cannot pass.
#
#     scripts/linkage-check.sh        # prints both builds' sizes and symbol counts
#
# Uses the same scratch path as the other builds: the dependencies' objects are shared, only SessionKit's own
# targets are compiled once more with the other traits.
set -euo pipefail
cd "$(dirname "$0")/.."

nio_pattern='[0-9](C?NIO[A-Za-z0-9_]*|AsyncHTTPClient)|c_nio_|CNIO'

swift build --product sessionkit-linkage-probe --disable-default-traits --traits URLSessionOnLinux >&2
probe="$(swift build --show-bin-path)/sessionkit-linkage-probe"
cp "$probe" "$probe.apple-like" # the next default build overwrites the probe
probe="$probe.apple-like"

swift build --product sessionkit-linkage-probe --traits default,URLSessionOnLinux >&2
control="$(swift build --show-bin-path)/sessionkit-linkage-probe"

count() { nm "$1" | grep -cE "$nio_pattern" || true; }
in_probe=$(count "$probe")
in_control=$(count "$control")
echo "sessionkit-linkage-probe (SessionKit alone, no AsyncHTTPClientOnLinux): $(stat -c %s "$probe") bytes, $in_probe NIO or AsyncHTTPClient symbols"
echo "sessionkit-linkage-probe (control, default traits): $(stat -c %s "$control") bytes, $in_control NIO or AsyncHTTPClient symbols"
"$probe" >/dev/null || { echo "the probe does not run" >&2; exit 1; }

if [ "$in_control" -eq 0 ]; then
    echo "FAIL: the pattern finds no NIO symbol in the probe built with AsyncHTTPClient: fix the pattern" >&2
    exit 1
fi
if [ "$in_probe" -ne 0 ]; then
    echo "FAIL: an app on SessionKit alone links NIO or AsyncHTTPClient; the first symbols:" >&2
    nm "$probe" | grep -E "$nio_pattern" | head -20 >&2
    exit 1
fi
echo "ok: SessionKit alone links no SwiftNIO and no AsyncHTTPClient"
