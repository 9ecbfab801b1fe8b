#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension JSONValue: Codable {
    /// Decodes any JSON value.
    ///
    /// Each kind that does not match costs a thrown `DecodingError`, so the kinds are tried from the most
    /// common in tokens and provider answers (strings, then integers) on; JSON's kinds do not overlap, so
    /// the order changes nothing else.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses `data` as JSON (RFC 8259, strictly): an integer literal that fits in `Int` becomes ``int(_:)``,
    /// any other number ``double(_:)``.
    ///
    /// - Throws: An error that names the byte offset and what is wrong there, when `data` is not JSON.
    public init(parsing data: Data) throws {
        self = try JSONParser.parse(data)
    }

    /// The value as compact JSON text with sorted keys.
    ///
    /// - Throws: An error that says so when the value holds a number JSON cannot (infinity, NaN).
    public func jsonData() throws -> Data {
        Data(try JSONTextWriter.write(self))
    }
}
