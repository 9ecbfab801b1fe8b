import Foundation
import SessionKit
import Testing

/// What a provider says goes into errors and challenges without anything a terminal acts on (ESC, CR, other C0 and
/// C1 controls, bidi overrides): an app or a CLI that shows `error.message` or `error_description` shows text.
@Suite("Provider text: no terminal controls in errors and challenges")
struct ProviderTextTests {
    static let hostile = "\u{1B}]0;pwned\u{07}\r\nline two \u{202E}desrever\u{202C} \u{9B}2J \u{1B}[31mred\u{7F}\u{0}"

    /// A provider at https://provider.example.com/ whose token and device endpoints answer `token` and `device`.
    struct ScriptedProvider: HTTPTransport {
        var token: (status: Int, body: JSONValue) = (400, .object(["error": "invalid_request"]))
        var device: (status: Int, body: JSONValue) = (400, .object(["error": "invalid_request"]))

        static let issuer = "https://provider.example.com/"

        func send(_ request: HTTPRequest, timeout: Duration) async throws(SessionKitError) -> HTTPResponse {
            let (status, body): (Int, JSONValue)
            switch request.url.path {
            case "/.well-known/openid-configuration":
                (status, body) = (
                    200,
                    .object([
                        "issuer": .string(Self.issuer), "token_endpoint": .string(Self.issuer + "oauth/token"),
                        "device_authorization_endpoint": .string(Self.issuer + "oauth/device/code"),
                        "scopes_supported": ["openid", "offline_access"],
                    ])
                )
            case "/oauth/token": (status, body) = token
            case "/oauth/device/code": (status, body) = device
            default: (status, body) = (404, .object([:]))
            }
            return HTTPResponse(
                status: status, headers: [("Content-Type", "application/json")], body: (try? body.jsonData()) ?? Data())
        }

        var client: ProviderClient {
            get throws {
                ProviderClient(
                    configuration: try ProviderConfiguration(issuer: URL(string: Self.issuer)!, clientID: "app"),
                    transport: self)
            }
        }
    }

    @Test("error and error_description: the controls are gone from every property and from the description")
    func providerError() async throws {
        var provider = ScriptedProvider()
        provider.token = (
            400, .object(["error": .string("invalid_request\u{1B}[8m"), "error_description": .string(Self.hostile)])
        )
        let error = try await #require(throws: SessionKitError.self) {
            _ = try await provider.client.signIn(username: "alice", password: Secret("wrong"))
        }
        for text in [error.message, error.oauthError ?? "", error.oauthErrorDescription ?? "", error.description] {
            #expect(controls(in: text).isEmpty, "\(controls(in: text)) in \(text)")
        }
        #expect(error.oauthError == "invalid_request[8m")
        #expect(error.oauthErrorDescription == "]0;pwned  line two desrever 2J [31mred")
    }

    @Test("a step-up challenge's acr_values, from a token endpoint or a WWW-Authenticate header, hold no control")
    func stepUp() async throws {
        var provider = ScriptedProvider()
        provider.token = (
            403,
            .object([
                "error": "mfa_required", "error_description": .string(Self.hostile), "mfa_token": "m",
                "acr_values": .string("urn:a\u{1B}[2J urn:b\u{202E}"),
            ])
        )
        let error = try await #require(throws: SessionKitError.self) {
            _ = try await provider.client.signIn(username: "alice", password: Secret("right"))
        }
        #expect(error.code == .stepUpRequired)
        #expect(error.stepUp?.acrValues == ["urn:a[2J", "urn:b"])
        let header = "Bearer error=\"insufficient_user_authentication\", acr_values=\"urn:a\u{9B}1m urn:b\u{7}\""
        #expect(StepUpChallenge(wwwAuthenticate: header)?.acrValues == ["urn:a1m", "urn:b"])
    }

    @Test("a device code with controls is refused: it could be neither shown safely nor typed")
    func deviceCode() async throws {
        var provider = ScriptedProvider()
        provider.device = (
            200,
            .object([
                "device_code": "d", "user_code": .string("WDJB\u{1B}[2J-MJHT"),
                "verification_uri": .string(ScriptedProvider.issuer + "activate"), "expires_in": 60,
            ])
        )
        let error = try await #require(throws: SessionKitError.self) {
            _ = try await provider.client.startDeviceAuthorization()
        }
        #expect(error.code == .invalidResponse)
        #expect(error.message.contains("user_code"), "\(error.message)")
    }

    private func controls(in text: String) -> [UInt32] {
        text.unicodeScalars.map(\.value).filter { value in
            value < 0x20 || (0x7F...0x9F).contains(value) || [0x061C, 0x200E, 0x200F].contains(value)
                || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
        }
    }
}
