/// How a confidential client proves its identity at the token, revocation and device-authorization endpoints
/// (OpenID Connect Core 9, RFC 6749 2.3.1). Public clients (apps and CLIs without a secret) send only their
/// `client_id`, whatever this says.
public enum ClientAuthenticationMethod: String, Sendable, CaseIterable, Codable {
    /// Chosen from the discovery document's `token_endpoint_auth_methods_supported`: `client_secret_basic` when
    /// listed (or when the list is absent, its default per RFC 8414), else `client_secret_post`.
    case automatic
    /// The id and secret in an HTTP Basic `Authorization` header, each form-encoded first.
    case clientSecretBasic = "client_secret_basic"
    /// The id and secret as `client_id` and `client_secret` in the form body.
    case clientSecretPost = "client_secret_post"

    /// The method to use with a provider that lists `supported` (`nil`: the document has no list).
    ///
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` when the provider lists neither secret method.
    func resolved(supported: [String]?) throws(SessionKitError) -> ClientAuthenticationMethod {
        guard self == .automatic else { return self }
        let listed = supported ?? [Self.clientSecretBasic.rawValue]
        if listed.contains(Self.clientSecretBasic.rawValue) { return .clientSecretBasic }
        if listed.contains(Self.clientSecretPost.rawValue) { return .clientSecretPost }
        throw SessionKitError(
            code: .invalidConfiguration,
            message: "the provider accepts client authentication by \(listed.joined(separator: ", ")) only; SessionKit "
                + "sends a client secret by client_secret_basic or client_secret_post: register the client for one "
                + "of those, or set the client authentication method if the provider accepts it anyway"
        )
    }
}
