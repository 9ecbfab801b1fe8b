import AuthEmulator
import Foundation
import NIOHTTP1
import Testing

@Suite("Signing key rotation")
struct KeyRotationTests {
    func kids(_ h: Harness) async throws -> [String] {
        guard case .array(let keys)? = try await h.get(".well-known/jwks.json").json["keys"] else { return [] }
        return keys.compactMap { $0.objectValue?["kid"]?.stringValue }
    }

    @Test func newKeySignsWhileTheOldStaysPublished() async throws {
        try await Harness.with(.testing { $0.keyRotationOverlap = 3600 }) { h in
            let before = try await h.signIn()
            let beforeAccess = try #require(before["access_token"])
            let oldKID = try #require(try await h.verify(beforeAccess).kid)
            let newKID = try await h.emulator.controls.rotateSigningKeys()
            #expect(newKID != oldKID)
            #expect(Set(try await kids(h)) == [oldKID, newKID])
            let after = try await h.signIn()
            let afterAccess = try #require(after["access_token"])
            #expect(try await h.verify(afterAccess).kid == newKID)
            // A token signed by the old key still verifies, at the emulator too.
            #expect(try await h.get("userinfo", headers: h.bearer(beforeAccess)).status == 200)

            try await h.emulator.controls.advanceClock(by: 3601)
            #expect(try await kids(h) == [newKID], "the old key leaves after the overlap")
        }
    }

    @Test("with RSA keys shared between a test process's emulators, a ring never holds the same key twice")
    func sharedKeysAreNeverRepeatedInOneRing() async throws {
        RSAKeyPool.enable(size: 8)
        try await Harness.with(.testing { $0.keyRotationOverlap = 3600 }) { h in
            // Ten keys published at once from a pool of eight: two must be made outside it.
            for _ in 0..<9 { try await h.emulator.controls.rotateSigningKeys() }
            guard case .array(let keys)? = try await h.get(".well-known/jwks.json").json["keys"] else {
                Issue.record("no JWKS")
                return
            }
            let moduli = keys.compactMap { $0.objectValue?["n"]?.stringValue }
            #expect(moduli.count == 10)
            #expect(Set(moduli).count == 10, "a key's material appears twice in one JWKS")
            #expect(Set(try await kids(h)).count == 10)
        }
    }
}
