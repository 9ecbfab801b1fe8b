import AuthEmulator
import Foundation
import SessionKitTesting
import Synchronization
import Testing

@testable import SessionKit

/// A validator whose cache the test can see, over the factory's JWKS.
private func validator(_ factory: TokenFactory, cache: IDTokenCache, refetch: Duration = .seconds(60))
    -> IDTokenValidator
{
    let data = factory.jwks
    let counter = factory.fetches
    return IDTokenValidator(
        keys: JWKSCache(refetchInterval: refetch, validated: cache) { () async throws(SessionKitError) -> Data in
            counter.increment()
            return data
        },
        clientSecret: nil
    )
}

private func expectCheck(
    _ check: ValidationCheck, _ body: () async throws(SessionKitError) -> JWT,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    do {
        _ = try await body()
        Issue.record("expected the \(check) check to fail", sourceLocation: sourceLocation)
    } catch {
        #expect(error.failedCheck == check, "\(error)", sourceLocation: sourceLocation)
    }
}

@Suite("ID-token validation cache: what a hit may skip and what it may not")
struct IDTokenCacheTests {
    @Test("a repeated validation is a hit, and a hit still checks the time against the current clock")
    func timeChecksOnHit() async throws {
        let factory = await TokenFactory()
        let cache = IDTokenCache()
        let validator = validator(factory, cache: cache)
        let token = try await factory.sign(factory.claims.merging(["nbf": .int(1_800_000_000 + 30)]) { $1 })
        let expected = factory.expectations()
        _ = try await validator.validate(token, expecting: expected)
        #expect(cache.count == 1)
        #expect(try await validator.validate(token, expecting: expected).subject == "auth0|alice")
        #expect(factory.fetches.load() == 1)

        var later = expected
        later.now = factory.now.addingTimeInterval(600 + 61)  // exp is now + 600, leeway 60
        await expectCheck(.expiry) { () async throws(SessionKitError) in
            try await validator.validate(token, expecting: later)
        }
        #expect(cache.count == 0, "a token that failed on a hit is dropped")

        _ = try await validator.validate(token, expecting: expected)
        var earlier = expected
        earlier.now = factory.now.addingTimeInterval(-120)  // iat is now - 5: in the future then
        await expectCheck(.issuedAt) { () async throws(SessionKitError) in
            try await validator.validate(token, expecting: earlier)
        }
        _ = try await validator.validate(token, expecting: expected)
        earlier.now = factory.now.addingTimeInterval(-40)  // nbf is now + 30: later than now - 40 + 60
        await expectCheck(.notBefore) { () async throws(SessionKitError) in
            try await validator.validate(token, expecting: earlier)
        }
    }

    @Test("the expectations are part of the key: another nonce, client or subject is checked in full")
    func keyedByExpectations() async throws {
        let factory = await TokenFactory()
        let cache = IDTokenCache()
        let validator = validator(factory, cache: cache)
        let token = try await factory.sign(factory.claims)
        _ = try await validator.validate(token, expecting: factory.expectations())
        await expectCheck(.nonce) { () async throws(SessionKitError) in
            try await validator.validate(token, expecting: factory.expectations(nonce: "n-2"))
        }
        var otherClient = factory.expectations()
        otherClient.clientID = "client-2"
        await expectCheck(.audience) { () async throws(SessionKitError) in
            try await validator.validate(token, expecting: otherClient)
        }
        await expectCheck(.subject) { () async throws(SessionKitError) in
            try await validator.validate(token, expecting: factory.expectations(subject: "auth0|bob"))
        }
        #expect(cache.count == 1, "failures are never cached")
    }

    @Test("a token that differs in one byte of its signature is verified, and refused")
    func exactBytes() async throws {
        let factory = await TokenFactory()
        let validator = validator(factory, cache: IDTokenCache())
        let token = try await factory.sign(factory.claims)
        _ = try await validator.validate(token, expecting: factory.expectations())
        var raw = Array(token.unsafeRawValue.utf8)
        raw[raw.count - 3] = raw[raw.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let tampered = Secret(String(decoding: raw, as: UTF8.self))
        await expectCheck(.signature) { () async throws(SessionKitError) in
            try await validator.validate(tampered, expecting: factory.expectations())
        }
    }

    @Test("the cache is bounded, kept by a reload that keeps its keys, and emptied by one that withdraws a key")
    func boundedAndFlushed() async throws {
        let factory = await TokenFactory()
        let cache = IDTokenCache(capacity: 3)
        let served = Mutex(factory.jwks)
        let validator = IDTokenValidator(
            keys: JWKSCache(refetchInterval: .zero, validated: cache) { () async throws(SessionKitError) -> Data in
                factory.fetches.increment()
                return served.withLock { $0 }
            },
            clientSecret: nil)
        var tokens: [Secret] = []
        for index in 0..<5 {
            let token = try await factory.sign(factory.claims.merging(["jti": .string("t\(index)")]) { $1 })
            tokens.append(token)
            _ = try await validator.validate(token, expecting: factory.expectations())
        }
        #expect(cache.count == 3)
        #expect(cache.claims(for: .init(tokens[0], factory.expectations())) == nil, "the oldest was evicted")
        #expect(cache.claims(for: .init(tokens[4], factory.expectations())) != nil)
        // A token naming a key the cache does not know makes the JWKS reload; the same keys come back.
        let unknown = try await factory.sign(factory.claims, header: ["alg": "ES256", "kid": "k2", "typ": "JWT"])
        await expectCheck(.unknownKey) { () async throws(SessionKitError) in
            try await validator.validate(unknown, expecting: factory.expectations())
        }
        #expect(factory.fetches.load() == 2)
        #expect(cache.count == 3, "no key was withdrawn: the verified tokens stay verified")
        // The provider withdraws k1: the next reload empties the cache.
        served.withLock { $0 = Data(#"{"keys":[]}"#.utf8) }
        await expectCheck(.unknownKey) { () async throws(SessionKitError) in
            try await validator.validate(unknown, expecting: factory.expectations())
        }
        #expect(factory.fetches.load() == 3)
        #expect(cache.count == 0)
    }

    @Test("a stranger's token naming unknown keys: one shared fetch, then none until the cooldown has passed")
    func strangerCooldown() async throws {
        let factory = await TokenFactory()
        // The cache's clock is the test's: time passes only when the test says so.
        let start = ContinuousClock.now
        let elapsed = Mutex(Duration.zero)
        let fetch = { @Sendable () async throws(SessionKitError) -> Data in
            factory.fetches.increment()
            try? await Task.sleep(for: .milliseconds(50))
            return factory.jwks
        }
        let keys = JWKSCache(
            refetchInterval: .zero, strangerCooldown: .seconds(30), now: { start + elapsed.withLock { $0 } },
            fetch: fetch)
        _ = try await keys.key(for: "k1", algorithm: "ES256")
        #expect(factory.fetches.load() == 1)
        // Within the cooldown: refused as retryable, and nothing fetched.
        elapsed.withLock { $0 = .seconds(29) }
        for index in 0..<50 {
            do {
                _ = try await keys.key(for: "made-up-\(index)", algorithm: "ES256", presentedBy: .anyone)
                Issue.record("a made-up key id was accepted")
            } catch {
                #expect(error.isRetryable, "\(error)")
            }
        }
        #expect(factory.fetches.load() == 1)
        // After it, 50 at once: one fetch, which those that come while it is under way share; those that come
        // after it are within the new cooldown.
        elapsed.withLock { $0 = .seconds(31) }
        let failures = await withTaskGroup(of: ValidationCheck?.self) { group in
            for index in 0..<50 {
                group.addTask {
                    do throws(SessionKitError) {
                        _ = try await keys.key(for: "later-\(index)", algorithm: "ES256", presentedBy: .anyone)
                        return nil
                    } catch {
                        return error.failedCheck ?? .signature
                    }
                }
            }
            return await group.reduce(into: [ValidationCheck?]()) { $0.append($1) }
        }
        #expect(factory.fetches.load() == 2, "one fetch for fifty callers")
        #expect(failures.filter { $0 == .unknownKey }.count >= 1)
        #expect(failures.allSatisfy { $0 != nil })
        // A token from the provider itself still gets its refetch for a new key id.
        _ = try? await keys.key(for: "rotated", algorithm: "ES256")
        #expect(factory.fetches.load() == 3)
    }

    @Test("ProviderClient.validateIDToken validates the emulator's ID token, the second time from the cache")
    func publicAPI() async throws {
        try await LiveEmulator.with { emulator in
            let provider = ProviderClient(configuration: try emulator.providerConfiguration())
            let credentials = try await provider.signIn(
                username: AuthEmulator.User.aliceEmail, password: Secret(AuthEmulator.User.alicePassword))
            let idToken = try #require(credentials.idToken)
            try await emulator.controls.resetRequestCounts()
            #expect(try await provider.validateIDToken(idToken).subject == AuthEmulator.User.aliceID)
            #expect(try await provider.validateIDToken(idToken).subject == AuthEmulator.User.aliceID)
            #expect(provider.validatedIDTokens.count == 1)
            #expect(try await emulator.controls.requestCounts().byEndpoint.isEmpty, "the keys were already loaded")
            await expectCheck(.nonce) { () async throws(SessionKitError) in
                try await provider.validateIDToken(idToken, nonce: "not-the-nonce")
            }
        }
    }
}
