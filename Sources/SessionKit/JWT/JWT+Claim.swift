public import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension JWT {
    /// One claim of a JWT, with typed accessors that return `nil` when the claim is absent or has
    /// another type.
    public struct Claim: Sendable, Equatable {
        /// The claim's name.
        public let name: String
        /// The claim's JSON value, when the token has it.
        public let value: JSONValue?

        /// Whether the token has this claim.
        public var exists: Bool { value != nil }
        /// The value as a string.
        public var string: String? { value?.stringValue }
        /// The value as a boolean.
        public var boolean: Bool? { value?.boolValue }
        /// The value as an integer.
        public var integer: Int? { value?.intValue }
        /// The value as a floating-point number.
        public var double: Double? { value?.doubleValue }
        /// The value as a date, when it is a NumericDate (seconds since 1970).
        public var date: Date? { value?.doubleValue.map(Date.init(timeIntervalSince1970:)) }
        /// The value as strings: a single string gives a one-element array.
        public var stringArray: [String]? {
            switch value {
            case .string(let single): return [single]
            case .array(let elements):
                let strings = elements.compactMap(\.stringValue)
                return strings.count == elements.count ? strings : nil
            default: return nil
            }
        }
    }
}
