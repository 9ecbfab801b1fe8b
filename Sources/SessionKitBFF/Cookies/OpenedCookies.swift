import Synchronization

/// Session cookies this back end opened lately, by their value: a browser sends the same cookie on every request
/// until the back end refreshes it (at most once a minute), and opening one (base64url, AES-GCM, the parse) cost
/// about 3% of the CPU of a forwarded request (see `Benchmarks/bff.sh`).
///
/// Only values that opened with the back end's key are kept, so a flood of made-up cookies never fills it; once it
/// holds `capacity` of them it starts again from empty. A value maps to what opening it gives, always the same, so
/// a cookie served from here is the one opening it would give: its lifetime and idle time are checked by the
/// caller on every request as before.
final class OpenedCookies: Sendable {
    private let capacity: Int
    private let cookies = Mutex<[String: SessionCookie]>([:])

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many cookies it holds.
    var count: Int { cookies.withLock { $0.count } }

    /// The cookie opened from `value` lately, if any.
    func cookie(for value: String) -> SessionCookie? {
        cookies.withLock { $0[value] }
    }

    /// Keeps `cookie`, opened from `value`.
    func remember(_ cookie: SessionCookie, for value: String) {
        cookies.withLock { cookies in
            if cookies.count >= capacity { cookies.removeAll(keepingCapacity: true) }
            cookies[value] = cookie
        }
    }
}
