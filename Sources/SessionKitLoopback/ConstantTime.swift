/// Comparisons whose duration does not depend on where two secrets differ.
enum ConstantTime {
    /// Whether `a` and `b` are the same bytes, looking at every byte of `b` whatever `a` holds. Only the
    /// lengths (which are not secret: `state` and the start path have a fixed length) can end it early.
    static func equals(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in right.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
