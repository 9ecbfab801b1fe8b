/// A secret string, such as a token, code, password or client secret, that never prints.
///
/// `description`, `debugDescription`, string interpolation, `dump` and logging all show
/// `<redacted>`; the only way to the value is the explicitly named ``unsafeRawValue``. Encoding
/// writes the value itself, because stores must keep it: encode secrets only into a secure store.
///
/// ```swift
/// let token = Secret("eyJhbGciOi...")
/// print(token)                        // <redacted>
/// request.headers.add(name: "Authorization", value: "Bearer \(token.unsafeRawValue)")
/// ```
public struct Secret: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let value: String

    /// Wraps a secret value.
    public init(_ value: String) {
        self.value = value
    }

    /// The secret itself. Use it only to send the secret where it belongs; never print or log it.
    public var unsafeRawValue: String { value }

    /// Whether the secret is the empty string.
    public var isEmpty: Bool { value.isEmpty }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }

    /// Always `Secret(<redacted>)`.
    public var debugDescription: String { "Secret(<redacted>)" }

    /// A mirror with no children, so `dump` and reflection show nothing of the value.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// Decodes a secret from a single string value.
    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the secret's value as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
