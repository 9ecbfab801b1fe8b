/// Whether a URL's host names this machine's loopback interface, the only place plain `http` is allowed.
///
/// Exactly three forms are loopback: the name `localhost`, the IPv6 address `::1` (bracketed or not), and an
/// IPv4 address in dotted-quad form whose first octet is 127 (`127.0.0.1`, `127.1.2.3`). A name that merely
/// starts with `127.` (`127.example.com`) is a DNS name like any other and is not loopback; neither are the
/// short or octal forms some resolvers accept (`127.1`, `0177.0.0.1`), which this check refuses rather than
/// interprets.
package enum LoopbackHost {
    /// Whether `host` (as `URL.host` gives it) is a loopback address or `localhost`.
    package static func contains(_ host: String) -> Bool {
        // Trimmed by hand: `trimmingCharacters(in:)` goes through NSString, a measurable part of every
        // `sessionctl token` (see `Benchmarks/cli.sh`).
        var bare = Substring(host)
        if bare.first == "[", bare.last == "]" {
            bare = bare.dropFirst().dropLast()
        }
        let lowered = bare.lowercased()
        return lowered == "localhost" || lowered == "::1" || isLoopbackIPv4(lowered)
    }

    /// `127.a.b.c` with four decimal octets of 0...255, no leading zeros (which some resolvers read as octal).
    private static func isLoopbackIPv4(_ text: String) -> Bool {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in
            guard (1...3).contains(octet.count), octet.utf8.allSatisfy({ (48...57).contains($0) }),
                octet == "0" || octet.first != "0", let value = Int(octet)
            else { return false }
            return value <= 255
        }
    }
}
