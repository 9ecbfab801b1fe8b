import Foundation
import Testing

@testable import SessionKitSupport

/// Unpadded base64url (RFC 4648 §5), as JWTs, PKCE, DPoP and session ids use it.
@Suite("Base64URL")
struct Base64URLTests {
    /// RFC 4648 §10's vectors, without their padding.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test("RFC 4648's vectors encode without padding and decode back")
    func vectors() {
        for (plain, encoded) in Self.vectors {
            #expect(Base64URL.encode(Data(plain.utf8)) == encoded)
            #expect(Base64URL.decode(Substring(encoded)) == Data(plain.utf8))
        }
    }

    @Test("The URL alphabet stands in for + and /, and every byte round-trips")
    func alphabet() {
        #expect(Base64URL.encode([UInt8]([0xFB, 0xFF])) == "-_8")
        #expect(Base64URL.decode("-_8") == Data([0xFB, 0xFF]))
        let bytes = (0...255).map { UInt8($0) }
        for count in 0...bytes.count {
            let encoded = Base64URL.encode(bytes.prefix(count))
            let expected = Data(bytes.prefix(count)).base64EncodedString()
                .replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
            #expect(encoded == expected)
            #expect(Base64URL.decode(Substring(encoded)) == Data(bytes.prefix(count)))
        }
    }

    @Test(
        "Padding, the standard alphabet and impossible lengths are refused",
        arguments: ["Zg==", "+_8", "-/8", "Zm9vY", "Z!"])
    func refusesMalformed(text: String) {
        #expect(Base64URL.decode(Substring(text)) == nil)
    }
}
