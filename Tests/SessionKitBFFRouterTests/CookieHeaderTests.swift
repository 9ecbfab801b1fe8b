import HTTPTypes
import Hummingbird
import Testing

@testable import SessionKitBFF

/// The back end's own read of a cookie answers as Hummingbird's `Cookies` does, which it replaces on every request.
@Suite("Cookie header")
struct CookieHeaderTests {
    /// Both readers' answers for `name` in these `Cookie` fields.
    func answers(_ name: String, _ values: [String]) -> (ours: String?, hummingbird: String?) {
        var fields = HTTPFields()
        for value in values { fields.append(HTTPField(name: .cookie, value: value)) }
        // Hummingbird reads the fields as a request holds them (`HTTPField` trims a value's ends).
        return (CookieHeader.value(named: name, in: fields), Cookies(from: fields[values: .cookie])[name]?.value)
    }

    @Test("the first pair of that name, across fields, with spaces and tabs before a pair dropped")
    func examples() {
        let cases: [(String, [String], String?)] = [
            ("sid", ["sid=abc"], "abc"),
            ("sid", ["a=1; sid=abc; b=2"], "abc"),
            ("sid", ["a=1;sid=abc"], "abc"),
            ("sid", ["a=1;  \tsid=abc"], "abc"),
            ("sid", ["sid=first; sid=second"], "first"),
            ("sid", ["a=1", "sid=from-the-second-field"], "from-the-second-field"),
            ("sid", ["sid2=x; xsid=y"], nil),
            ("sid", ["sid"], nil),
            ("sid", ["sid=a=b"], "a=b"),
            ("sid", ["sid==x"], "x"),
            ("sid", ["sid=; sid=later"], nil),
            ("sid", ["sid=", "sid=in-a-later-field"], nil),
            ("sid", [], nil),
            ("__Host-sid", ["__Host-sid-signin-x=1; __Host-sid=v"], "v"),
        ]
        for (name, values, expected) in cases {
            let (ours, hummingbird) = answers(name, values)
            #expect(ours == expected, "\(values)")
            #expect(ours == hummingbird, "\(values)")
        }
    }

    @Test("random fields: the same answer as Hummingbird's parse")
    func matchesHummingbird() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["sid", "sid2", "x", "=", ";", " ", "\t", "; ", "abc", "é", "sid=", "=sid", ";;"]
        var compared = 0
        for _ in 0..<5_000 {
            let fields = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                    .joined()
            }
            let (ours, hummingbird) = answers("sid", fields)
            #expect(ours == hummingbird, "\(fields)")
            if hummingbird != nil { compared += 1 }
        }
        #expect(compared > 100, "too few random fields held the cookie to compare answers")
    }
}
