import Foundation
import JWTKit
import SessionKitSupport
import Synchronization
import Testing

@testable import SessionKit

/// Counts JWKS fetches.
final class FetchCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    func load(ordering: Void = ()) -> Int { count.withLock { $0 } }
}

/// Signs ID tokens with a real ES256 key and serves its JWKS, so each test breaks exactly one rule.
struct TokenFactory {
    let keys = JWTKeyCollection()
    let privateKey = ES256PrivateKey()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let fetches = FetchCounter()

    init() async {
        await keys.add(ecdsa: privateKey, kid: "k1")
    }

    var jwks: Data {
        let (x, y) = privateKey.publicKey.parameters ?? ("", "")
        return Data(
            #"{"keys":[{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)","kid":"k1","alg":"ES256","use":"sig"}]}"#.utf8)
    }

    var claims: [String: JSONValue] {
        [
            "iss": "https://issuer.example/", "sub": "auth0|alice", "aud": "client-1", "nonce": "n-1",
            "exp": .int(Int(now.timeIntervalSince1970) + 600), "iat": .int(Int(now.timeIntervalSince1970) - 5),
            "auth_time": .int(Int(now.timeIntervalSince1970) - 100),
        ]
    }

    func sign(_ claims: [String: JSONValue], header: [String: JSONValue] = ["alg": "ES256", "kid": "k1", "typ": "JWT"])
        async throws -> Secret
    {
        let input =
            "\(Base64URL.encode(try JSONValue.object(header).jsonData())).\(Base64URL.encode(try JSONValue.object(claims).jsonData()))"
        let key = try await keys.getKey(for: "k1")
        return Secret("\(input).\(Base64URL.encode(try key.sign(Data(input.utf8))))")
    }

    func validator(secret: Secret? = nil, refetch: Duration = .seconds(60)) -> IDTokenValidator {
        let data = jwks
        let counter = fetches
        return IDTokenValidator(
            keys: JWKSCache(refetchInterval: refetch) { () async throws(SessionKitError) -> Data in
                counter.increment()
                return data
            },
            clientSecret: secret
        )
    }

    func expectations(nonce: String? = "n-1", maxAge: TimeInterval? = nil, subject: String? = nil)
        -> IDTokenValidator.Expectations
    {
        .init(
            issuer: "https://issuer.example/", clientID: "client-1", nonce: nonce, maxAge: maxAge, subject: subject,
            now: now, leeway: 60)
    }
}

private func expectFailure(
    _ check: ValidationCheck,
    _ factory: TokenFactory,
    token: Secret,
    expecting expectations: IDTokenValidator.Expectations? = nil,
    secret: Secret? = nil
) async {
    do {
        _ = try await factory.validator(secret: secret).validate(
            token, expecting: expectations ?? factory.expectations())
        Issue.record("expected the \(check) check to fail")
    } catch {
        #expect(error.failedCheck == check, "\(error)")
        #expect(error.code == .validationFailed)
    }
}

@Suite("ID-token validation (OIDC Core 3.1.3.7)")
struct IDTokenValidationTests {
    @Test("a valid token passes and its claims are returned")
    func valid() async throws {
        let factory = await TokenFactory()
        let jwt = try await factory.validator().validate(
            try await factory.sign(factory.claims), expecting: factory.expectations())
        #expect(jwt.subject == "auth0|alice")
    }

    @Test("alg none is refused")
    func algNone() async throws {
        let factory = await TokenFactory()
        let input =
            "\(Base64URL.encode(Data(#"{"alg":"none"}"#.utf8))).\(Base64URL.encode(try JSONValue.object(factory.claims).jsonData()))."
        await expectFailure(.algorithm, factory, token: Secret(input))
    }

    @Test("HS256 is refused without a client secret and accepted with the right one")
    func hs256() async throws {
        let factory = await TokenFactory()
        let hmac = JWTKeyCollection()
        await hmac.add(
            hmac: HMACKey(from: "client-secret-value-at-least-32-bytes-long"), digestAlgorithm: .sha256, kid: "h")
        let header = try JSONValue.object(["alg": "HS256", "typ": "JWT"]).jsonData()
        let input = "\(Base64URL.encode(header)).\(Base64URL.encode(try JSONValue.object(factory.claims).jsonData()))"
        let signature = try await hmac.getKey(for: "h").sign(Data(input.utf8))
        let token = Secret("\(input).\(Base64URL.encode(signature))")
        await expectFailure(.algorithm, factory, token: token)
        await expectFailure(.signature, factory, token: token, secret: Secret("another-secret-also-at-least-32-bytes"))
        await expectFailure(.algorithm, factory, token: token, secret: Secret("short-secret"))
        let jwt = try await factory.validator(secret: Secret("client-secret-value-at-least-32-bytes-long")).validate(
            token, expecting: factory.expectations())
        #expect(jwt.header.algorithm == "HS256")
    }

    @Test("a header alg that does not match the key is refused")
    func algorithmMismatch() async throws {
        let factory = await TokenFactory()
        let token = try await factory.sign(factory.claims, header: ["alg": "RS256", "kid": "k1"])
        await expectFailure(.algorithm, factory, token: token)
    }

    @Test("an unknown kid gets one refetch whatever the interval, is refused after it, and is not refetched again")
    func unknownKey() async throws {
        let factory = await TokenFactory()
        let validator = factory.validator()
        let good = try await factory.sign(factory.claims)
        _ = try await validator.validate(good, expecting: factory.expectations())
        #expect(factory.fetches.load() == 1)
        let token = try await factory.sign(factory.claims, header: ["alg": "ES256", "kid": "rotated"])
        for _ in 0..<3 {
            await #expect(throws: SessionKitError.self) {
                _ = try await validator.validate(token, expecting: factory.expectations())
            }
        }
        #expect(factory.fetches.load() == 2, "one refetch for the new kid, then the refetch interval")
        let eager = factory.validator(refetch: .zero)
        _ = try await eager.validate(good, expecting: factory.expectations())
        await #expect(throws: SessionKitError.self) {
            _ = try await eager.validate(token, expecting: factory.expectations())
        }
        #expect(factory.fetches.load() == 4, "an unknown kid triggers one refetch")
        await expectFailure(.unknownKey, factory, token: token)
    }

    @Test("a flipped signature byte is refused")
    func badSignature() async throws {
        let factory = await TokenFactory()
        // Flip a character in the middle of the signature: the last one may carry only unused bits.
        var characters = Array(try await factory.sign(factory.claims).unsafeRawValue)
        let index = characters.count - 20
        characters[index] = characters[index] == "A" ? "B" : "A"
        await expectFailure(.signature, factory, token: Secret(String(characters)))
    }

    @Test("a malformed token is refused as such")
    func malformed() async {
        let factory = await TokenFactory()
        await expectFailure(.malformedIDToken, factory, token: Secret("not-a-jwt"))
    }

    @Test(
        "each claim rule fails alone",
        arguments: [
            ("iss", JSONValue.string("https://evil.example/"), ValidationCheck.issuer),
            ("iss", nil, .issuer),
            ("aud", "other-client", .audience),
            ("aud", ["other", "client-1"], .authorizedParty),
            ("azp", "other", .authorizedParty),
            ("sub", nil, .subject),
            ("exp", nil, .expiry),
            ("exp", .int(1_800_000_000 - 61), .expiry),
            ("iat", nil, .issuedAt),
            ("iat", .int(1_800_000_000 + 61), .issuedAt),
            ("nbf", .int(1_800_000_000 + 61), .notBefore),
            ("nonce", "other", .nonce),
            ("nonce", nil, .nonce),
        ] as [(String, JSONValue?, ValidationCheck)]
    )
    func claimRule(name: String, value: JSONValue?, check: ValidationCheck) async throws {
        let factory = await TokenFactory()
        var claims = factory.claims
        claims[name] = value
        await expectFailure(check, factory, token: try await factory.sign(claims))
    }

    @Test("leeway accepts an exp just past and an iat just ahead")
    func leeway() async throws {
        let factory = await TokenFactory()
        var claims = factory.claims
        claims["exp"] = .int(1_800_000_000 - 30)
        claims["iat"] = .int(1_800_000_000 + 30)
        _ = try await factory.validator().validate(try await factory.sign(claims), expecting: factory.expectations())
    }

    @Test("several audiences with azp = client id pass")
    func azp() async throws {
        let factory = await TokenFactory()
        var claims = factory.claims
        claims["aud"] = ["client-1", "https://api.example/"]
        claims["azp"] = "client-1"
        _ = try await factory.validator().validate(try await factory.sign(claims), expecting: factory.expectations())
    }

    @Test("max_age needs a recent auth_time")
    func maxAge() async throws {
        let factory = await TokenFactory()
        let token = try await factory.sign(factory.claims)
        _ = try await factory.validator().validate(token, expecting: factory.expectations(maxAge: 3600))
        await expectFailure(.authenticationTime, factory, token: token, expecting: factory.expectations(maxAge: 10))
        var claims = factory.claims
        claims["auth_time"] = nil
        await expectFailure(
            .authenticationTime, factory, token: try await factory.sign(claims),
            expecting: factory.expectations(maxAge: 3600))
    }

    @Test("a renewal's ID token must name the same user")
    func subjectChange() async throws {
        let factory = await TokenFactory()
        let token = try await factory.sign(factory.claims)
        await expectFailure(
            .subject, factory, token: token, expecting: factory.expectations(nonce: nil, subject: "auth0|bob"))
    }

    @Test("no nonce is required when none was sent")
    func noNonceExpected() async throws {
        let factory = await TokenFactory()
        var claims = factory.claims
        claims["nonce"] = nil
        _ = try await factory.validator().validate(
            try await factory.sign(claims), expecting: factory.expectations(nonce: nil))
    }
}
