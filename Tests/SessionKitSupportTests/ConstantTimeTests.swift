import Testing

@testable import SessionKitSupport

@Suite("ConstantTime")
struct ConstantTimeTests {
    @Test("Equal bytes are equal; a difference anywhere, or in length, is not")
    func equality() {
        #expect(ConstantTime.equals("", ""))
        #expect(ConstantTime.equals("state-0123456789", "state-0123456789"))
        #expect(!ConstantTime.equals("state-0123456789", "xtate-0123456789"), "first byte")
        #expect(!ConstantTime.equals("state-0123456789", "state-012345678x"), "last byte")
        #expect(!ConstantTime.equals("state", "state-"), "a prefix")
        #expect(!ConstantTime.equals("", "a"))
        #expect(!ConstantTime.equals("é", "e\u{301}"), "bytes are compared, not canonical equivalence")
        #expect(ConstantTime.equals([0, 1, 255], [0, 1, 255]))
        #expect(!ConstantTime.equals([0, 1, 255], [0, 1, 254]))
    }
}
