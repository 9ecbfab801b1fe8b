import Foundation
import SecureStore
import SessionKit
import SessionKitLoopback
import Testing

/// Issue 47: pushed authorization requests (RFC 9126) and CIBA (OpenID CIBA Core 1.0, poll mode) against a provider
/// nobody here wrote: idpyoidc 5.0.0 from PyPI (IdentityPython), hosted by `Interop/idpyoidc/server.py` and started
/// by `.ci/run`.
///
/// What idpyoidc does, and so what these tests assert (each seen by `Interop/idpyoidc/smoke_test.py` too):
/// - Its authorization endpoint checks the browser's request as a whole OpenID request before it resolves a
///   `request_uri`: the RFC 9126 front channel (`client_id` and `request_uri` only, what SessionKit sends) is refused
///   with `invalid_request` "Missing required attribute 'response_type'". With `response_type`, `scope` and
///   `redirect_uri` beside it (OpenID Connect Core 6.2; idpyoidc's own client adds them) it signs in, and the pushed
///   values win.
/// - Its CIBA token helper never issues tokens: it looks for the approval among the user's grants for the client by
///   comparing full session keys with a bare grant id, so it takes the request's own grant for it (and its PKCE
///   add-on answers `invalid_grant` "Unknown access grant") or, once anything else exists, finds two
///   (`invalid_request` "More then one authentication found").
///   `sessionkit-confidential` gets that helper as it is; `sessionkit-ciba-corrected` gets the hosting glue's
///   correction (`CorrectedCIBATokenHelper`: the approval the test control recorded), which answers a poll before
///   approval with `invalid_request` "No authentication found", never `authorization_pending`.
/// - Its ID tokens carry `scope` as an array of strings (SessionKit reads both forms).
@Suite("Interop: PAR and CIBA against idpyoidc", .serialized)
struct IdpyOIDCInteropTests {
    static var base: URL? {
        LoopbackInteropServer.running(variable: "SESSIONKIT_INTEROP_IDPYOIDC_URL", folder: "idpyoidc")
    }

    /// The running server, or `nil` with an issue recorded when `SESSIONKIT_REQUIRE_INTEROP=1`.
    static func running() -> URL? {
        guard let base else {
            if ProcessInfo.processInfo.environment["SESSIONKIT_REQUIRE_INTEROP"] == "1" {
                Issue.record("idpyoidc is not running: start it with Interop/idpyoidc/start.sh")
            }
            return nil  // skipped: nothing to run against (Interop/idpyoidc/start.sh starts it)
        }
        return base
    }

    /// The clients of `Interop/idpyoidc/fixtures.py` (public test fixtures): idpyoidc's CIBA token helper as it is,
    /// and with the hosting glue's correction.
    static let clientID = "sessionkit-confidential"
    static let correctedClientID = "sessionkit-ciba-corrected"
    static let secret = "interop-confidential-secret-not-a-secret"
    static let loginHint = "mail:interop-user@example.test"
    static let redirectURI = "http://127.0.0.1:31891/callback"

    static func provider(
        _ base: URL, clientID: String = clientID, pushed: PushedAuthorization? = nil
    ) throws -> ProviderClient {
        var configuration = try ProviderConfiguration(
            issuer: base, clientID: clientID, clientSecret: Secret(secret), scope: "openid email offline_access")
        if let pushed { configuration.pushedAuthorization = pushed }
        return ProviderClient(configuration: configuration)
    }

    /// A binding message no other test uses, so that the test control approves this request only.
    static func bindingMessage(_ prefix: String) -> String {
        "\(prefix) \(Int.random(in: 1000...9999))"
    }

    /// TEST ONLY route of the hosting glue: approves the pending request with `bindingMessage`, as the user's
    /// authentication device would. Returns how many it approved.
    static func approve(at base: URL, bindingMessage: String) async throws -> Int {
        var form = URLComponents()
        form.queryItems = [
            URLQueryItem(name: "login_hint", value: loginHint),
            URLQueryItem(name: "binding_message", value: bindingMessage),
        ]
        let answer = try await ProviderClient.defaultTransport.send(
            HTTPRequest(
                method: "POST", url: base.appendingPathComponent("test-only/ciba/approve"),
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Data((form.percentEncodedQuery ?? "").utf8)),
            timeout: .seconds(10))
        guard answer.status == 200, let approved = try JSONValue(parsing: answer.body)["approved"]?.intValue else {
            throw TestFailure("the approval control answered HTTP \(answer.status)")
        }
        return approved
    }

    /// One GET without following redirects.
    static func open(_ url: URL) async throws -> HTTPResponse {
        try await ProviderClient.defaultTransport.send(HTTPRequest(method: "GET", url: url), timeout: .seconds(10))
    }

    @Test("PAR repeating the OpenID parameters: SessionKit's own URL signs the user in at idpyoidc")
    func pushedSignInRepeatingOpenIDParameters() async throws {
        guard let base = Self.running() else { return }
        let provider = try Self.provider(base, pushed: PushedAuthorization.always.repeatingOpenIDParameters())
        // offline_access: idpyoidc wants prompt=consent in the URL too (OpenID Connect Core 11), repeated with the rest.
        let request = try await provider.authorizationRequest(
            redirectURI: try #require(URL(string: Self.redirectURI)), prompt: "consent")
        let query = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(
            query.map(\.name).sorted() == [
                "client_id", "prompt", "redirect_uri", "request_uri", "response_type", "scope",
            ],
            "\(query.map(\.name))")
        #expect(query.first { $0.name == "scope" }?.value == "openid email offline_access")
        let authorized = try await Self.open(request.url)
        let location = try #require(authorized.header("Location"), "HTTP \(authorized.status)")
        #expect(location.hasPrefix(Self.redirectURI + "?"))
        let credentials = try await provider.exchange(callback: try #require(URL(string: location)), for: request)
        #expect(credentials.idTokenClaims?.subject?.isEmpty == false)
        #expect(credentials.refreshToken != nil, "offline_access granted")
    }

    @Test("PAR: the push is accepted, the browser carries only client_id and request_uri, the code is exchanged")
    func pushedSignIn() async throws {
        guard let base = Self.running() else { return }
        let provider = try Self.provider(base, pushed: .always)
        let request = try await provider.authorizationRequest(redirectURI: try #require(URL(string: Self.redirectURI)))
        let query = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(query.map(\.name).sorted() == ["client_id", "request_uri"], "\(query.map(\.name))")
        #expect(query.first { $0.name == "request_uri" }?.value?.hasPrefix("urn:uuid:") == true)

        // idpyoidc refuses the RFC 9126 front channel as it is, and the refusal does not spend the request_uri.
        let refused = try await Self.open(request.url)
        #expect(refused.status == 400, "HTTP \(refused.status)")
        let error = try JSONValue(parsing: refused.body)
        #expect(error["error"]?.stringValue == "invalid_request")
        #expect(error["error_description"]?.stringValue == "Missing required attribute 'response_type'")

        // With OpenID Connect Core 6.2's parameters beside it, it signs the user in with the pushed parameters
        // (PKCE challenge, state, nonce, redirect URI: a different one here is ignored).
        var components = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false))
        components.queryItems =
            query + [
                URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "scope", value: "openid"),
                URLQueryItem(name: "redirect_uri", value: "http://127.0.0.1:31892/callback"),
            ]
        let authorized = try await Self.open(try #require(components.url))
        let location = try #require(authorized.header("Location"), "HTTP \(authorized.status)")
        #expect(location.hasPrefix(Self.redirectURI + "?"), "the code went to the pushed redirect URI")
        let credentials = try await provider.exchange(callback: try #require(URL(string: location)), for: request)
        // idpyoidc's subject is public but opaque (a hash of the user id and a salt), so only its presence.
        #expect(credentials.idTokenClaims?.subject?.isEmpty == false)
        #expect(credentials.refreshToken != nil)

        // Renewed with idpyoidc's refresh grant (it rotates the refresh token, and keeps the old one usable).
        let session = SessionManager(provider: provider, store: MemoryStore(service: "idpyoidc-interop"))
        try await session.store(credentials)
        let renewed = try await session.renew()
        #expect(renewed.accessToken != credentials.accessToken)
        #expect(renewed.refreshToken != nil && renewed.refreshToken != credentials.refreshToken)

        // A request_uri is used once.
        let spent = try await Self.open(try #require(components.url))
        #expect(spent.status == 400 && spent.header("Location") == nil, "HTTP \(spent.status)")
    }

    @Test("sessionctl login --browser --par as a process: idpyoidc's error page, then its sign-in with the extras")
    func pushedSignInCLI() async throws {
        guard let base = Self.running() else { return }
        var cli = try CLI.make()
        defer { cli.cleanUp() }
        cli.environment["SESSIONCTL_CLIENT_SECRET"] = Self.secret
        let configure = try await cli.run(["configure", "--issuer", base.absoluteString, "--client-id", Self.clientID])
        #expect(configure.status == 0, "\(configure.output)")
        let redirectURI = try await Self.freeRedirectURI()
        let login = try cli.start([
            "login", "--browser", "--no-open", "--par", "--redirect-uri", redirectURI,
            "--scope", "openid email offline_access",
        ])
        // The start link sends the browser to idpyoidc with client_id and request_uri only, which it refuses.
        let browser = ScriptedBrowser()
        let refused = try await browser.open(try await login.startLink(timeout: .seconds(60)))
        let query = try #require(URLComponents(url: refused.url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(query.map(\.name).sorted() == ["client_id", "request_uri"], "\(query.map(\.name))")
        #expect(refused.status == 400 && refused.html.contains("Missing required attribute 'response_type'"))
        // With OpenID Connect's parameters beside the request_uri, the code reaches sessionctl's listener.
        var components = try #require(URLComponents(url: refused.url, resolvingAgainstBaseURL: false))
        components.queryItems =
            query + [
                URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "scope", value: "openid"),
                URLQueryItem(name: "redirect_uri", value: redirectURI),
            ]
        let page = try await browser.open(try #require(components.url))
        #expect(page.html.contains("Signed in"), "\(page.url.path), HTTP \(page.status)")
        let result = try await login.finish(timeout: .seconds(60))
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.output.contains(Self.secret))
        #expect(try await cli.run(["status"]).status == 0)
    }

    /// The first of the client's registered redirect URIs (`REDIRECT_PORTS` in `fixtures.py`, matched exactly by
    /// idpyoidc) whose port is free.
    static func freeRedirectURI() async throws -> String {
        for port in 31891...31900 {
            let uri = "http://127.0.0.1:\(port)/callback"
            guard let probe = try? await LoopbackRedirectListener.start(redirectURI: try LoopbackRedirectURI(uri))
            else { continue }
            await probe.stop()
            return uri
        }
        throw TestFailure("no registered redirect port is free (31891...31900)")
    }

    @Test("CIBA (idpyoidc's helper with the glue's correction): approved on the device, then real tokens")
    func backchannelSignIn() async throws {
        guard let base = Self.running() else { return }
        let provider = try Self.provider(base, clientID: Self.correctedClientID)
        let message = Self.bindingMessage("SessionKit")
        let started = try await provider.backchannelSignIn(loginHint: Self.loginHint, bindingMessage: message)
        #expect(started.interval == 1 && started.bindingMessage == message)
        #expect(try await Self.approve(at: base, bindingMessage: message) == 1)
        // Approved before the first poll (SessionKit waits `interval` first): idpyoidc has no pending answer.
        // SessionKit validated the ID token on receipt (idpyoidc's signature, iss, aud, exp).
        let credentials = try await provider.pollBackchannelSignIn(started)
        #expect(credentials.idTokenClaims?.subject?.isEmpty == false)
        #expect(credentials.canRenew, "offline_access was asked for: a refresh token")
        #expect(!credentials.accessToken.unsafeRawValue.isEmpty)
    }

    @Test("CIBA polled before approval: idpyoidc answers invalid_request, and SessionKit stops at once and says so")
    func prematurePoll() async throws {
        guard let base = Self.running() else { return }
        let provider = try Self.provider(base, clientID: Self.correctedClientID)
        let started = try await provider.backchannelSignIn(
            loginHint: Self.loginHint, bindingMessage: Self.bindingMessage("Early"))
        let clock = ContinuousClock()
        let began = clock.now
        let error = await #expect(throws: SessionKitError.self) { try await provider.pollBackchannelSignIn(started) }
        #expect(clock.now - began < .seconds(10), "no silent wait")
        #expect(error?.code == .providerError)
        #expect(error?.oauthError == "invalid_request")
        #expect(error?.oauthErrorDescription == "No authentication found")
        #expect(error?.description.contains("authorization_pending") == true, "\(String(describing: error))")
    }

    @Test("CIBA with idpyoidc's token helper as it is: approved, yet refused; SessionKit stops and says so")
    func unmodifiedHelper() async throws {
        guard let base = Self.running() else { return }
        let provider = try Self.provider(base)
        let message = Self.bindingMessage("Plain")
        let started = try await provider.backchannelSignIn(loginHint: Self.loginHint, bindingMessage: message)
        #expect(try await Self.approve(at: base, bindingMessage: message) == 1)
        let error = await #expect(throws: SessionKitError.self) { try await provider.pollBackchannelSignIn(started) }
        #expect(error?.code == .providerError)
        // "Unknown access grant" on a fresh provider, "More then one authentication found" once the client has any
        // other grant for the user: the comparison in idpyoidc 5.0.0's CIBATokenHelper.post_parse_request.
        #expect(["invalid_grant", "invalid_request"].contains(error?.oauthError ?? ""), "\(String(describing: error))")
        #expect(error?.description.contains("backchannel sign-in failed") == true, "\(String(describing: error))")
    }

    @Test("sessionctl login --backchannel --login-hint as a process, approved through the test control")
    func backchannelCLI() async throws {
        guard let base = Self.running() else { return }
        let cli = try CLI.make()
        defer { cli.cleanUp() }
        var configured = cli
        configured.environment["SESSIONCTL_CLIENT_SECRET"] = Self.secret
        let configure = try await configured.run([
            "configure", "--issuer", base.absoluteString, "--client-id", Self.correctedClientID,
        ])
        #expect(configure.status == 0, "\(configure.output)")
        let message = Self.bindingMessage("CLI")
        let login = try configured.start([
            "login", "--backchannel", "--login-hint", Self.loginHint, "--binding-message", message,
            "--scope", "openid email offline_access",
        ])
        let shown = try await login.waitForStderr(containing: "approve it on your device")
        #expect(shown.contains(message), "\(shown)")
        #expect(try await Self.approve(at: base, bindingMessage: message) == 1)
        let result = try await login.finish()
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.output.contains(Self.secret) && !result.output.contains("auth_req_id"))
        #expect(try await configured.run(["status"]).status == 0)
    }
}
