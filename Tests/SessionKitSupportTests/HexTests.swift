import Crypto
import Foundation
import Testing

@testable import SessionKitSupport

@Suite("Hex")
struct HexTests {
    @Test("Bytes are written as Foundation's %02x writes them, and read back")
    func roundTrip() {
        let samples: [[UInt8]] = [
            [], [0], [0x0f, 0xf0, 0xff], Array(0...255), Array(SHA256.hash(data: Data("k".utf8))),
        ]
        for bytes in samples {
            let text = Hex.string(bytes)
            #expect(text == bytes.map { String(format: "%02x", $0) }.joined())
            #expect(Hex.bytes(text.utf8) == bytes)
        }
        #expect(Hex.bytes("0A0b".utf8) == [0x0a, 0x0b], "either case is read")
        // A slice out of a longer payload, as an announcement's digest is read: its own indices, not the array's.
        let payload = Array("app:0a0b:w".utf8)
        #expect(Hex.bytes(payload[4..<8]) == [0x0a, 0x0b])
        #expect(Hex.bytes(payload[4..<7]) == nil)
    }

    @Test("Odd lengths and characters that are not hexadecimal are refused", arguments: ["0", "0g", "zz", " 0", "0:"])
    func refusesMalformed(text: String) {
        #expect(Hex.bytes(text.utf8) == nil)
    }

    @Test("A text's SHA-256 is named by its 64 lower-case digits")
    func sha256() {
        // FIPS 180-2's "abc".
        #expect(Hex.sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.sha256("é") == Hex.string(SHA256.hash(data: Data("é".utf8))), "the UTF-8 bytes are hashed")
    }

    @Test("One digit's value, in either case; nothing else is a digit")
    func digitValues() {
        let digits = Array("0123456789abcdefABCDEF".utf8)
        #expect(digits.map { Hex.value(of: $0) } == (0...15).map { UInt8($0) } + (10...15).map { UInt8($0) })
        let others: [UInt8] = [UInt8(ascii: "g"), UInt8(ascii: "G"), UInt8(ascii: "/"), UInt8(ascii: ":"), 0x00, 0xFF]
        #expect(others.allSatisfy { Hex.value(of: $0) == nil })
    }
}
