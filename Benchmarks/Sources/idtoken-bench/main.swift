// Issue 8, item 4: ID-token validation (RS256 and ES256) in one run with raw swift-crypto verification of
// the same bytes (the limit), jwt-kit's own verify, and a repeated validation served from the cache. The
// provider's discovery document and JWKS come from memory, so no network time is measured. Run in release:
//
//     swift build --package-path Benchmarks -c release && Benchmarks/.build/release/idtoken-bench
import BenchmarkSupport
import Crypto
import Foundation
import JWTKit
import SessionKit
import _CryptoExtras

/// The provider and client the tokens are for.
enum Fixture {
    static let issuer = "https://bench.example/"
    static let clientID = "bench-client"
}

/// Serves the discovery document and the JWKS from memory.
struct MemoryTransport: HTTPTransport {
    let jwks: Data
    func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
        if request.url.path.hasSuffix("openid-configuration") {
            let document = #"{"issuer":"\#(Fixture.issuer)","jwks_uri":"\#(Fixture.issuer).well-known/jwks.json"}"#
            return HTTPResponse(status: 200, body: Data(document.utf8))
        }
        return HTTPResponse(status: 200, body: jwks)
    }
}

/// The claims an OpenID provider puts in an ID token.
struct IDClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var jti: IDClaim
    var email: String

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

func decodeBase64URL(_ text: Substring) -> Data {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64)!
}

/// One algorithm's keys, tokens and raw verifier.
struct Case {
    let name: String
    let signer: JWTKeyCollection
    let jwk: String
    let rawVerify: @Sendable (Data, Data) -> Bool
}

func makeCases() async throws -> [Case] {
    let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    let rsaSigner = JWTKeyCollection()
    await rsaSigner.add(
        rsa: try Insecure.RSA.PrivateKey(backing: rsa), digestAlgorithm: .sha256, kid: JWKIdentifier(string: "rsa"))
    let primitives = try rsa.publicKey.getKeyPrimitives()
    let rsaPublic = rsa.publicKey
    let rsaJWK =
        #"{"kty":"RSA","kid":"rsa","alg":"RS256","use":"sig","n":"\#(base64URL(primitives.modulus))","e":"\#(base64URL(primitives.publicExponent))"}"#

    let p256 = P256.Signing.PrivateKey()
    let ecSigner = JWTKeyCollection()
    await ecSigner.add(ecdsa: try ES256PrivateKey(pem: p256.pemRepresentation), kid: JWKIdentifier(string: "ec"))
    let raw = p256.publicKey.rawRepresentation
    let p256Public = p256.publicKey
    let ecJWK =
        #"{"kty":"EC","crv":"P-256","kid":"ec","alg":"ES256","use":"sig","x":"\#(base64URL(raw.prefix(32)))","y":"\#(base64URL(raw.suffix(32)))"}"#

    return [
        Case(name: "RS256", signer: rsaSigner, jwk: rsaJWK) { input, signature in
            rsaPublic.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input),
                padding: .insecurePKCS1v1_5)
        },
        Case(name: "ES256", signer: ecSigner, jwk: ecJWK) { input, signature in
            guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return p256Public.isValidSignature(parsed, for: SHA256.hash(data: input))
        },
    ]
}

func run() async throws {
    let issuer = Fixture.issuer
    let clientID = Fixture.clientID
    Report.header("ID-token validation (issue 8, item 4)")
    let cases = try await makeCases()
    let jwks = Data(#"{"keys":[\#(cases.map(\.jwk).joined(separator: ","))]}"#.utf8)
    var configuration = try ProviderConfiguration(issuer: URL(string: issuer)!, clientID: clientID)
    configuration.leeway = 60
    let provider = ProviderClient(configuration: configuration, transport: MemoryTransport(jwks: jwks))
    let verifier = JWTKeyCollection()
    try await verifier.add(jwksJSON: String(decoding: jwks, as: UTF8.self))
    // More distinct tokens than the validation cache holds (64), so that cycling through them always misses.
    let distinct = 256
    let samples = 40

    for testCase in cases {
        var tokens: [String] = []
        for index in 0..<distinct {
            let claims = IDClaims(
                iss: .init(value: issuer), sub: .init(value: "auth0|65a1f0c0ffee000000000001"),
                aud: .init(value: [clientID]), exp: .init(value: Date().addingTimeInterval(3_600)),
                iat: .init(value: Date()), jti: .init(value: "token-\(index)"), email: "alice@example.com")
            tokens.append(
                try await testCase.signer.sign(
                    claims, kid: JWKIdentifier(string: testCase.name == "RS256" ? "rsa" : "ec")))
        }
        let parts = tokens.map { token -> (Data, Data) in
            let dot = token.lastIndex(of: ".")!
            return (Data(token[..<dot].utf8), decodeBase64URL(token[token.index(after: dot)...]))
        }
        let secrets = tokens.map { Secret($0) }
        print("-- \(testCase.name), \(tokens[0].utf8.count)-byte tokens")

        var next = 0
        let raw = await measure(samples: samples, batch: distinct, warmup: distinct) {
            let (input, signature) = parts[next % distinct]
            next += 1
            precondition(testCase.rawVerify(input, signature))
        }
        Report.row("raw swift-crypto verify (SHA-256 + \(testCase.name))", raw, samples: samples)

        let jwtKit = try await measure(samples: samples, batch: distinct, warmup: distinct) {
            blackHole(try await verifier.verify(tokens[next % distinct], as: IDClaims.self))
            next += 1
        }
        Report.row("jwt-kit JWTKeyCollection.verify", jwtKit, samples: samples)

        let decoding = try await measure(samples: samples, batch: distinct, warmup: distinct) {
            blackHole(try JWT(decoding: tokens[next % distinct]))
            next += 1
        }
        Report.row("SessionKit JWT(decoding:) alone", decoding, samples: samples)

        let validation = try await measure(samples: samples, batch: distinct, warmup: distinct) {
            blackHole(try await provider.validateIDToken(secrets[next % distinct]))
            next += 1
        }
        Report.row("SessionKit validateIDToken (cache miss)", validation, samples: samples)

        let cached = try await measure(samples: 200, batch: 10_000, warmup: 1_000) {
            blackHole(try await provider.validateIDToken(secrets[0]))
        }
        Report.row("SessionKit validateIDToken (same token)", cached, samples: 200)

        let rateShare = raw.median / validation.median
        let cacheSpeedup = validation.median / cached.median
        print(
            "  rates: raw \(Int(1e9 / raw.median))/s, jwt-kit \(Int(1e9 / jwtKit.median))/s, "
                + "SessionKit \(Int(1e9 / validation.median))/s, cached \(Int(1e9 / cached.median))/s")
        print(
            "  target: validation >= 70% of the raw rate: \(Report.verdict(rateShare >= 0.7)) "
                + "(\(String(format: "%.0f", rateShare * 100))%; jwt-kit: "
                + "\(String(format: "%.0f", raw.median / jwtKit.median * 100))%)")
        print(
            "  target: cached validation >= 100× faster: \(Report.verdict(cacheSpeedup >= 100)) "
                + "(\(Report.ratio(cacheSpeedup)))")
    }
}

// Off the main actor, so that the hops between SessionKit's and jwt-kit's actors stay on one pool thread.
try await Task.detached { try await run() }.value
