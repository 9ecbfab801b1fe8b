import Foundation
import Synchronization

/// The emulator's clock: the system time plus an offset that test controls can advance.
///
/// Every expiry decision and the `Date` header read this clock, so advancing it expires tokens at once.
final class EmulatorClock: Sendable {
    private let offset: Mutex<Double>

    init(offset: Double = 0) {
        self.offset = Mutex(offset)
    }

    /// The current emulator time.
    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// The current offset from the system clock, in seconds.
    var currentOffset: Double { offset.withLock { $0 } }

    /// Moves the clock forward by `seconds` (negative values are refused by callers).
    func advance(by seconds: Double) {
        offset.withLock { $0 += seconds }
    }
}

extension Date {
    /// Whole seconds since 1970, as JWT `NumericDate`.
    var epochSeconds: Int { Int(timeIntervalSince1970.rounded(.down)) }

    /// The IMF-fixdate form used in the HTTP `Date` header, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    var httpDate: String {
        let seconds = epochSeconds
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        // Civil-from-days (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let time = "\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))"
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) \(time) GMT"
    }
}
