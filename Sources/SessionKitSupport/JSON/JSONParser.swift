#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// A strict RFC 8259 parser from UTF-8 bytes to ``JSONValue``, without `Codable`.
///
/// `JSONDecoder` finds its way through a `Codable` type with dynamic casts, and in a program the size of
/// `sessionctl` the first of each kind scans every protocol conformance in the binary (see `Benchmarks/cli.sh`): more
/// than the whole work of `sessionctl token`. This parser is a plain loop over the bytes. Its results match
/// `JSONDecoder` on every document (the tests compare them), and it refuses what JSON refuses: trailing
/// commas, comments, leading zeros, unescaped control characters, lone surrogates, trailing content and
/// nesting deeper than ``maximumDepth``.
package struct JSONParser {
    /// Why a document is not JSON, and where.
    package struct Failure: Error, CustomStringConvertible {
        /// What is wrong, in words.
        package let reason: String
        /// The byte offset where the parser found it.
        package let offset: Int
        /// `not valid JSON at byte N: reason`.
        package var description: String { "not valid JSON at byte \(offset): \(reason)" }
    }

    /// Deeper documents are refused rather than risk the stack.
    package static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0

    /// Parses `data` as one JSON value, with only whitespace around it.
    package static func parse(_ data: Data) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: [UInt8](data))
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.failure("content after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func failure(_ reason: String) -> Failure { Failure(reason: reason, offset: index) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("the document ends inside a literal") }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw failure("an unknown literal")
        }
        index += count
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth)") }
        guard let byte = current else { throw failure("the document ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("an unexpected character")
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("a member name must be a string") }
            let name = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("a ':' must follow a member name") }
            index += 1
            skipWhitespace()
            // A repeated name keeps its first value, as JSONDecoder does.
            let member = try value(depth: depth + 1)
            if members[name] == nil { members[name] = member }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: throw failure("a ',' or '}' must follow a member")
            }
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw failure("a ',' or ']' must follow an element")
            }
        }
    }

    private mutating func string() throws(Failure) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var start = index
        var plain = true
        // Tokens, URLs and dates are ASCII, which needs no UTF-8 validation: `String(validating:as:)` is generic
        // and not specialized, a measurable part of reading a session record in a renewal storm.
        var ascii = true
        while true {
            guard let byte = current else { throw failure("the document ends inside a string") }
            switch byte {
            case UInt8(ascii: "\""):
                let text: String
                if plain && ascii {
                    text = String(decoding: bytes[start..<index], as: UTF8.self)
                } else if plain {
                    guard let decoded = String(validating: bytes[start..<index], as: UTF8.self) else {
                        throw failure("a string that is not valid UTF-8")
                    }
                    text = decoded
                } else {
                    try flush(from: start, into: &scalars)
                    text = String(scalars)
                }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                try flush(from: start, into: &scalars)
                plain = false
                index += 1
                scalars.append(try escape())
                start = index
            case 0x00..<0x20:
                throw failure("a control character must be escaped in a string")
            case 0x80...:
                ascii = false
                index += 1
            default:
                index += 1
            }
        }
    }

    /// Appends the raw bytes from `start` up to the current position, checked as UTF-8.
    private func flush(from start: Int, into scalars: inout String.UnicodeScalarView) throws(Failure) {
        guard start < index else { return }
        guard let text = String(validating: bytes[start..<index], as: UTF8.self) else {
            throw failure("a string that is not valid UTF-8")
        }
        scalars.append(contentsOf: text.unicodeScalars)
    }

    private mutating func escape() throws(Failure) -> Unicode.Scalar {
        guard let byte = current else { throw failure("the document ends inside an escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hexUnit()
            if (0xD800..<0xDC00).contains(unit) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else { throw failure("a high surrogate without its low surrogate") }
                index += 2
                let low = try hexUnit()
                guard (0xDC00..<0xE000).contains(low) else {
                    throw failure("a high surrogate without its low surrogate")
                }
                let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw failure("an invalid surrogate pair") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(UInt32(unit)) else { throw failure("a lone low surrogate") }
            return scalar
        default:
            throw failure("an unknown escape")
        }
    }

    private mutating func hexUnit() throws(Failure) -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("the document ends inside a \\u escape") }
        var unit: UInt16 = 0
        for _ in 0..<4 {
            guard let digit = Hex.value(of: bytes[index]) else {
                throw failure("a \\u escape needs four hexadecimal digits")
            }
            unit = unit << 4 | UInt16(digit)
            index += 1
        }
        return unit
    }

    /// An integer literal that fits in `Int` is `.int`; any other number is `.double`.
    private mutating func number() throws(Failure) -> JSONValue {
        let start = index
        var integral = true
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw failure("a number needs a digit")
        }
        index += 1
        if first == UInt8(ascii: "0"), let next = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) {
            throw failure("a number must not start with 0")
        }
        skipDigits()
        if current == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard try digits() else { throw failure("a fraction needs a digit") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard try digits() else { throw failure("an exponent needs a digit") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let value = Int(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw failure("a number out of range") }
        return .double(value)
    }

    private mutating func skipDigits() {
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
    }

    /// Skips digits; whether there was at least one.
    private mutating func digits() throws(Failure) -> Bool {
        let start = index
        skipDigits()
        return index > start
    }
}
