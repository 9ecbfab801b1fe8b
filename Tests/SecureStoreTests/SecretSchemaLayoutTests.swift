import Testing

@testable import SecureStore

@Suite("SecretSchema memory layout")
struct SecretSchemaLayoutTests {
    @Test("matches libsecret's C struct: 592 bytes on 64-bit, NULL-terminated string attributes")
    func layout() throws {
        try #require(MemoryLayout<UnsafeRawPointer>.size == 8, "the offsets below are for 64-bit platforms")
        #expect(SecretSchemaLayout.byteCount == 592)
        let schema = SecretSchemaLayout.make(name: "dev.example.Schema", attributes: ["service", "account"])
        func string(at offset: Int) -> String? {
            schema.load(fromByteOffset: offset, as: UnsafePointer<CChar>?.self).map { String(cString: $0) }
        }
        #expect(string(at: 0) == "dev.example.Schema")
        #expect(schema.load(fromByteOffset: 8, as: Int32.self) == 0)  // SECRET_SCHEMA_NONE
        #expect(string(at: 16) == "service")
        #expect(schema.load(fromByteOffset: 24, as: Int32.self) == 0)  // SECRET_SCHEMA_ATTRIBUTE_STRING
        #expect(string(at: 32) == "account")
        #expect(string(at: 48) == nil)  // the terminator
        #expect(schema.load(fromByteOffset: 16 + 32 * 16, as: Int32.self) == 0)  // reserved
    }
}
