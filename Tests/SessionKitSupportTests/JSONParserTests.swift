import Foundation
import Testing

@testable import SessionKitSupport

/// The hand-written parser behind `JSONValue(parsing:)` against Foundation's `JSONDecoder`.
@Suite("JSONValue(parsing:): a strict parser that agrees with JSONDecoder")
struct JSONParserTests {
    /// Documents both must read alike.
    static let documents: [String] = [
        #"{"access_token":"eyJ.a.b","expires_in":86400,"scope":"openid profile","token_type":"Bearer"}"#,
        #"  [1, -2, 3.5, -0.25, 1e3, 2E-2, 0, -0, 9223372036854775807, 9223372036854775808, 1.5e300] "#,
        #"{"nested":{"a":[true,false,null,{"b":[]}],"c":{}},"empty":""}"#,
        #"{"escapes":"\" \\ \/ \b \f \n \r \t \u00e9 \u20AC \ud83d\ude00 plain é € 😀"}"#,
        #"{"dup":1,"dup":2}"#,
        #""just a string""#, "true", "null", "123", "-1.0",
        #"{"user_metadata":{"country":"Canada","n":[1,2,{"x":null}]},"email_verified":true}"#,
    ]

    @Test("the same values as JSONDecoder", arguments: documents)
    func agreesWithJSONDecoder(document: String) throws {
        let data = Data(document.utf8)
        let parsed = try JSONParser.parse(data)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(Self.same(parsed, decoded), "\(parsed) vs \(decoded)")
    }

    @Test(
        "what JSON refuses is refused, with the offset",
        arguments: [
            "", " ", "{", "[1,]", #"{"a":1,}"#, "[01]", "[1.]", "[.5]", "[1e]", "[+1]", "tru", "nul", "[1] x",
            #"{"a" 1}"#, #"{a:1}"#, "// c\n1", #"["\x"]"#, #"["\u12"]"#, #"["\ud800"]"#, #"["\udc00"]"#,
            "[\"a\u{01}\"]", "[NaN]", "[Infinity]", "[1e999]", "'a'",
        ])
    func refused(document: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Data(document.utf8)) }
    }

    @Test("invalid UTF-8 and deep nesting are refused, not crashed on")
    func hostile() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Data([0x22, 0xFF, 0xFE, 0x22])) }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Data(deep.utf8)) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: Never.self) { try JSONParser.parse(Data(fine.utf8)) }
    }

    @Test("integers that fit in Int are .int; fractions, exponents and larger ones are .double")
    func numberKinds() throws {
        #expect(try JSONParser.parse(Data("42".utf8)) == .int(42))
        #expect(try JSONParser.parse(Data("-7".utf8)) == .int(-7))
        #expect(try JSONParser.parse(Data("4.0".utf8)) == .double(4))
        #expect(try JSONParser.parse(Data("1e2".utf8)) == .double(100))
        #expect(try JSONParser.parse(Data("9223372036854775808".utf8)) == .double(9_223_372_036_854_775_808))
    }

    /// Equal values; numbers compare by value, since JSONDecoder reads `4.0` or `1e2` as an `Int` too.
    private static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        default:
            if let x = a.doubleValue, let y = b.doubleValue { return x == y }
            return a == b
        }
    }
}
