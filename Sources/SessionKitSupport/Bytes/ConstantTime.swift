/// Comparisons of secrets whose duration does not depend on where the two differ.
///
/// swift-crypto compares its own values (digests, message authentication codes, symmetric keys) in constant time
/// but offers no comparison of other bytes; this is that comparison for what a request carries (a `state`, a
/// one-time path): every byte is looked at, whatever the first difference.
package enum ConstantTime {
    /// Whether `a` and `b` are the same bytes, looking at every byte of `b` whatever `a` holds. Only the lengths
    /// (which are not secret: a `state` or a one-time path has a fixed length) can end it early.
    package static func equals(_ a: String, _ b: String) -> Bool {
        equals(Array(a.utf8), Array(b.utf8))
    }

    /// Whether `a` and `b` are the same bytes, looking at every byte of `b` whatever `a` holds; only a difference
    /// in length ends it early.
    package static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in b.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
