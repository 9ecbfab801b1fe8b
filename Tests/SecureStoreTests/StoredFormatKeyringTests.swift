import Foundation
import SecureStore
import SessionKit
import SessionKitTestSupport
import SessionKitTesting
import Testing

/// A Secret Service item as the first keyring store (c569508) wrote it, put in the keyring by `secret-tool` as any
/// other program would see it: the store reads its bytes, and they are a session.
@Suite(
    "Stored formats: an old build's Secret Service item",
    .enabled(if: TestKeyring.shouldRun, "needs an unlocked Secret Service: run under scripts/with-keyring")
)
struct StoredFormatKeyringTests {
    @Test("the item's text (b64: and base64 of the value) reads as the record it holds")
    func oldItem() async throws {
        try TestKeyring.require()
        try await TestKeyring.withAccess {
            let service = "stored-format.\(UUID().uuidString)"
            let store = SecretServiceStore(service: service)
            defer { try? store.deleteAll() }
            let text = try StoredFormatFixtures.data("secretservice-item-c569508.txt")
            try storeWithSecretTool(
                text.prefix { $0 != UInt8(ascii: "\n") },
                attributes: [
                    "xdg:schema": SecretServiceStore.schemaName, "service": service,
                    "account": StoredFormatFixtures.recordKey, "application": "sessionkit",
                ])
            let expected = try StoredFormatFixtures.data("record-8c13e80.json")
            #expect(try store.data(forKey: StoredFormatFixtures.recordKey) == expected)
            #expect(try store.keys() == [StoredFormatFixtures.recordKey])
            #expect(
                try SessionRecord.stored(expected).credentials?.accessToken.unsafeRawValue == "fixture.access-token")
        }
    }

    /// Stores `secret` under `attributes` with `secret-tool store`, which reads it on standard input.
    private func storeWithSecretTool(_ secret: Data, attributes: [String: String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["secret-tool", "store", "--label=SessionKit fixture"]
            + attributes.sorted { $0.key < $1.key }
            .flatMap { [$0.key, $0.value] }
        let input = Pipe()
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(secret)
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "secret-tool failed; install libsecret-tools")
    }
}
