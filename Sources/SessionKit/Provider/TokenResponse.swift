import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A successful token-endpoint answer, checked member by member before anything is built from it.
struct TokenResponse: Sendable {
    var accessToken: Secret
    var tokenType: String
    var expiresIn: TimeInterval?
    var refreshToken: Secret?
    var idToken: Secret?
    var scope: String?
    var issuedTokenType: String?
    var additional: [String: JSONValue]

    /// The longest `expires_in` accepted: ten years. Anything longer is a provider bug.
    static let maximumLifetime: TimeInterval = 10 * 365 * 86_400

    private static let known: Set<String> = [
        "access_token", "token_type", "expires_in", "refresh_token", "id_token", "scope", "issued_token_type",
    ]

    /// Parses and checks a token response body.
    ///
    /// - Throws: ``SessionKitError/Code/invalidResponse`` for a body that is not a JSON object, and
    ///   ``SessionKitError/Code/validationFailed`` for a member that breaks a rule.
    /// A `token_type` of DPoP is accepted only with `dpop`, when the request carried a proof (RFC 9449 section 5):
    /// a provider that binds tokens nobody asked it to bind has issued tokens this client cannot use.
    init(body: Data, endpoint: String, dpop: Bool = false) throws(SessionKitError) {
        guard let value = try? JSONValue(parsing: body), case .object(let object) = value else {
            throw SessionKitError(
                code: .invalidResponse,
                message: "the \(endpoint) answered with \(body.count) bytes that are not a JSON object; try again later"
            )
        }
        guard let access = object["access_token"]?.stringValue, !access.isEmpty else {
            throw Self.invalid(.accessToken, "the token response has no access_token")
        }
        guard let type = object["token_type"]?.stringValue else {
            throw Self.invalid(.tokenType, "the token response has no token_type")
        }
        let bearer = type.equalsIgnoringASCIICase("Bearer")
        guard bearer || (dpop && type.equalsIgnoringASCIICase("DPoP")) else {
            throw Self.invalid(
                .tokenType,
                "the token response's token_type is '\(type)'; SessionKit accepts Bearer"
                    + (dpop ? " and DPoP" : " (and DPoP with ProviderConfiguration.dpop set)"))
        }
        self.accessToken = Secret(access)
        self.tokenType = bearer ? "Bearer" : "DPoP"
        self.expiresIn = try Self.lifetime(object["expires_in"])
        self.refreshToken = try Self.optionalToken(object["refresh_token"], name: "refresh_token")
        self.idToken = try Self.optionalToken(object["id_token"], name: "id_token")
        self.scope = object["scope"]?.stringValue
        self.issuedTokenType = object["issued_token_type"]?.stringValue
        self.additional = object.filter { !Self.known.contains($0.key) }
    }

    /// Credentials received at `receivedAt`; `previous` supplies the refresh token and ID token when
    /// a renewal's answer omits them.
    func credentials(receivedAt: Date, keeping previous: Credentials? = nil) -> Credentials {
        Credentials(
            accessToken: accessToken,
            tokenType: tokenType,
            idToken: idToken ?? previous?.idToken,
            refreshToken: refreshToken ?? previous?.refreshToken,
            expiresAt: expiresIn.map { receivedAt.addingTimeInterval($0) },
            scope: scope ?? previous?.scope,
            issuedTokenType: issuedTokenType,
            receivedAt: receivedAt,
            additionalParameters: additional
        )
    }

    /// The `refresh_token` of a JSON object answer, if it is a non-empty string, whatever the other fields.
    static func refreshToken(in body: Data) -> Secret? {
        guard case .object(let object)? = try? JSONValue(parsing: body),
            let text = object["refresh_token"]?.stringValue, !text.isEmpty
        else { return nil }
        return Secret(text)
    }

    private static func lifetime(_ value: JSONValue?) throws(SessionKitError) -> TimeInterval? {
        guard let value, !value.isNull else { return nil }
        let seconds: Double? =
            switch value {
            case .string(let text): Double(text)
            default: value.doubleValue
            }
        guard let seconds, seconds.isFinite, seconds > 0, seconds <= maximumLifetime else {
            throw invalid(
                .expiresIn, "the token response's expires_in is not a number of seconds between 1 and ten years")
        }
        return seconds
    }

    private static func optionalToken(_ value: JSONValue?, name: String) throws(SessionKitError) -> Secret? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue, !text.isEmpty else {
            throw SessionKitError(
                code: .invalidResponse,
                message: "the token response's \(name) is a \(value.typeName), not a non-empty string"
            )
        }
        return Secret(text)
    }

    private static func invalid(_ check: ValidationCheck, _ message: String) -> SessionKitError {
        SessionKitError(
            code: .validationFailed,
            message: message + "; the provider's answer was refused and nothing was stored",
            failedCheck: check
        )
    }
}
