#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a renewal renews: the session's own access token, or an access token for another API from the session's
/// one refresh token (Auth0's Multi-Resource Refresh Token, Duende's per-`resource` tokens).
///
/// Every target renews with the same refresh token, and a provider that rotates it accepts each refresh token
/// once: so renewals of different targets never overlap, in a process (one running renewal at a time) or
/// across processes (one lease per session, whatever it renews).
enum RenewalTarget: Hashable, Sendable {
    /// The session's access token (the configured audience and scope).
    case session
    /// An access token for `audience`, with `scope` when one is named.
    case api(APIKey)
    /// A use of the refresh token that renews nothing and that no other call may share, such as trading it for a
    /// session transfer token (``SessionManager/sessionTransferToken(audience:)``): renewals wait for it as for any
    /// other target, and it waits for them.
    case exclusive(UUID)

    /// The key of an API's access token in the session record.
    struct APIKey: Hashable, Sendable {
        /// The API identifier sent as `audience`.
        let audience: String
        /// The scope asked for, its words sorted and without repeats; `nil` for the provider's default.
        let scope: String?

        init(audience: String, scope: String?) {
            self.audience = audience
            let words = Set((scope ?? "").split(whereSeparator: \.isWhitespace).map(String.init))
            self.scope = words.isEmpty ? nil : words.sorted().joined(separator: " ")
        }

        /// The key under which the record keeps the token: the audience, then the scope after a space.
        var recordKey: String { scope.map { "\(audience) \($0)" } ?? audience }

        /// The parameters the refresh grant adds for this API.
        var grantParameters: [String: String] {
            var parameters = ["audience": audience]
            if let scope { parameters["scope"] = scope }
            return parameters
        }
    }

    /// The credentials that serve this target in `record`, if any.
    func credentials(in record: SessionRecord) -> Credentials? {
        switch self {
        case .session: record.credentials
        case .api(let key): record.apiCredentials[key.recordKey]
        case .exclusive: nil
        }
    }
}
