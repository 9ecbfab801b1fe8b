import Foundation
import Testing

@testable import SessionKitSupport

/// ``JSONTextWriter`` writes what `JSONDecoder` and ``JSONParser`` read back as the same value.
@Suite("JSON text writer")
struct JSONTextWriterTests {
    private static let controls = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) }))

    static let values: [JSONValue] = [
        .null, .bool(true), .bool(false), .int(0), .int(-7), .int(Int.max), .int(Int.min),
        .double(0.1), .double(-0.0), .double(4), .double(786_000_000), .double(785_000_000.123456789),
        .double(1e-5), .double(.leastNonzeroMagnitude), .double(1.7976931348623157e308), .double(-2.5e-300),
        .string(""), .string("plain ascii/with/slashes"), .string("quote \" backslash \\ done"),
        .string(controls), .string("\u{7F} \u{e9}t\u{e9} \u{1F600} \u{2028}\u{2029}"),
        .array([]), .object([:]),
        .array([.null, .array([.int(1), .array([])]), .object(["k": .string("v")])]),
        .object([
            "b": .int(2), "a": .object(["nested": .array([.double(0.5), .bool(false)])]), "\u{e9}": .null,
            "with \"quote\"": .string("\n"),
        ]),
    ]

    @Test("what it writes reads back as the same value, with JSONParser and with JSONDecoder", arguments: values)
    func roundTrip(value: JSONValue) throws {
        let text = Data(try JSONTextWriter.write(value))
        #expect(try JSONParser.parse(text) == value)
        // JSONValue's Codable reads any integral number as `.int` ("4.0" too): numbers compare as numbers there.
        #expect(Self.sameNumbers(try JSONDecoder().decode(JSONValue.self, from: text), value))
        // Doubles to the last bit (-0.0 == 0.0, so compare the bits).
        if case .double(let written) = value, case .double(let read) = try JSONParser.parse(text) {
            #expect(read.bitPattern == written.bitPattern)
        }
    }

    private static func sameNumbers(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy { sameNumbers($0, $1) }
        case (.object(let x), .object(let y)): x.keys == y.keys && x.allSatisfy { sameNumbers($0.value, y[$0.key]!) }
        default: a == b || a.doubleValue != nil && a.doubleValue == b.doubleValue
        }
    }

    @Test("compact, keys sorted, control characters escaped")
    func form() throws {
        let text = String(
            decoding: try JSONTextWriter.write(["b": 1, "a": [true, nil], "c": "x\u{1}\t"]), as: UTF8.self)
        #expect(text == #"{"a":[true,null],"b":1,"c":"x\u0001\t"}"#)
    }

    @Test("a number JSON cannot hold is refused, not written", arguments: [Double.nan, .infinity, -.infinity])
    func refused(number: Double) {
        #expect(throws: JSONTextWriter.Failure.self) { try JSONTextWriter.write(.array([.double(number)])) }
    }
}
