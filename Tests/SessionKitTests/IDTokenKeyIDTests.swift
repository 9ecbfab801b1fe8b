import AuthEmulator
import Foundation
import JWTKit
import SessionKitTesting
import Testing

@testable import SessionKit

/// ID tokens whose header names no `kid` (OIDC Core 10.1: only required when the JWKS has several keys).
@Suite("ID tokens without a kid")
struct IDTokenKeyIDTests {
    /// The factory's public key as a JWK, with `kid` if given.
    private static func factoryJWK(_ factory: TokenFactory, kid: String? = nil) -> String {
        let (x, y) = factory.privateKey.publicKey.parameters ?? ("", "")
        let name = kid.map { #","kid":"\#($0)""# } ?? ""
        return #"{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)","alg":"ES256","use":"sig"\#(name)}"#
    }

    /// Another ES256 public key, unrelated to the factory's.
    private static func otherJWK() -> String {
        let (x, y) = ES256PrivateKey().publicKey.parameters ?? ("", "")
        return #"{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)","alg":"ES256","use":"sig"}"#
    }

    private static func validator(jwks keys: [String]) -> IDTokenValidator {
        let data = Data(#"{"keys":[\#(keys.joined(separator: ","))]}"#.utf8)
        return IDTokenValidator(
            keys: JWKSCache(refetchInterval: .seconds(60)) { () async throws(SessionKitError) -> Data in data },
            clientSecret: nil
        )
    }

    @Test("a token without a kid is accepted when the JWKS has exactly one key, itself without a kid")
    func oneUnnamedKey() async throws {
        let factory = await TokenFactory()
        let token = try await factory.sign(factory.claims, header: ["alg": "ES256", "typ": "JWT"])
        let jwt = try await Self.validator(jwks: [Self.factoryJWK(factory)])
            .validate(token, expecting: factory.expectations())
        #expect(jwt.subject == "auth0|alice")
    }

    @Test("a token without a kid is accepted when the JWKS has exactly one key, with a kid")
    func oneNamedKey() async throws {
        let factory = await TokenFactory()
        let token = try await factory.sign(factory.claims, header: ["alg": "ES256", "typ": "JWT"])
        let jwt = try await Self.validator(jwks: [Self.factoryJWK(factory, kid: "k1")])
            .validate(token, expecting: factory.expectations())
        #expect(jwt.subject == "auth0|alice")
    }

    @Test("a token without a kid is refused, naming the reason, when several keys could verify it")
    func severalKeys() async throws {
        let factory = await TokenFactory()
        let token = try await factory.sign(factory.claims, header: ["alg": "ES256", "typ": "JWT"])
        do {
            _ = try await Self.validator(jwks: [Self.otherJWK(), Self.factoryJWK(factory)])
                .validate(token, expecting: factory.expectations())
            Issue.record("expected the token to be refused")
        } catch {
            #expect(error.failedCheck == .unknownKey)
            #expect("\(error)".contains("names no key id"))
        }
    }

    @Test("a token with a kid cannot reach a key published without one")
    func localNamesAreUnreachable() async throws {
        let factory = await TokenFactory()
        let token = try await factory.sign(factory.claims, header: ["alg": "ES256", "kid": "\u{0}unnamed-0"])
        await #expect(throws: SessionKitError.self) {
            _ = try await Self.validator(jwks: [Self.factoryJWK(factory)])
                .validate(token, expecting: factory.expectations())
        }
    }

    @Test("over HTTP: a provider that signs without a kid is accepted with one key, refused with two")
    func emulatorWithoutKeyID() async throws {
        try await LiveEmulator.with(LiveEmulator.configuration { $0.omitsIDTokenKeyID = true }) { emulator in
            let password = Secret(AuthEmulator.User.alicePassword)
            let first = try await ProviderClient(configuration: try emulator.providerConfiguration())
                .signIn(username: AuthEmulator.User.aliceEmail, password: password)
            let idToken = try #require(first.idToken?.unsafeRawValue)
            var encoded = String(idToken.prefix { $0 != "." }).replacing("-", with: "+").replacing("_", with: "/")
            encoded += String(repeating: "=", count: (4 - encoded.count % 4) % 4)
            let header = try #require(Data(base64Encoded: encoded))
            #expect(!String(decoding: header, as: UTF8.self).contains("kid"))
            #expect(first.idTokenClaims?.subject != nil)

            _ = try await emulator.controls.rotateSigningKeys()  // the JWKS now publishes two RS256 keys
            do {
                _ = try await ProviderClient(configuration: try emulator.providerConfiguration())
                    .signIn(username: AuthEmulator.User.aliceEmail, password: password)
                Issue.record("a kid-less ID token was accepted although two keys could have signed it")
            } catch let error as SessionKitError {
                #expect(error.code == .validationFailed && error.failedCheck == .unknownKey)
                #expect(error.message.contains("names no key id"))
            }
        }
    }
}
