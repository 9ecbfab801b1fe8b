import SessionKitSupport

extension JSONValue {
    /// A number the emulator computes as a `Double` (a time, a lifetime) as it has always sent numbers: without a
    /// fraction when it is whole and well within `Int` (`900.0` is sent as `900`), otherwise as the double.
    static func number(_ value: Double) -> JSONValue {
        value.rounded() == value && abs(value) < 9e15 ? .int(Int(value)) : .double(value)
    }
}
