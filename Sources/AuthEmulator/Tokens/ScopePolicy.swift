/// Decides which audiences exist and which requested scopes are granted, as an Auth0 tenant would.
struct ScopePolicy: Sendable {
    let managementAudience: String
    let apis: [AuthEmulator.API]
    /// Whether `offline_access` is a scope (Auth0) or an unknown one (django-oauth-toolkit's defaults).
    var offlineAccessIsAScope = true

    /// The OpenID Connect scopes discovery lists.
    var discoveryScopes: [String] {
        ["openid", "profile", "email"] + (offlineAccessIsAScope ? ["offline_access"] : [])
    }

    /// Refuses a sign-in that asks for `offline_access` where it is not a scope, with `invalid_scope` as
    /// django-oauth-toolkit does for a scope it does not know.
    func checkKnown(requested: String?) throws(OAuthError) {
        guard !offlineAccessIsAScope, Self.split(requested)?.contains("offline_access") == true else { return }
        throw OAuthError(.invalidScope, "Invalid scope: offline_access")
    }

    /// The OpenID Connect scopes a user-facing grant may carry.
    static let userScopes: Set<String> = ["openid", "profile", "email", "offline_access"]
    /// The scope set used when a request names none.
    static let defaultScopes = ["openid", "profile", "email"]

    /// Checks an `audience`: `nil` stays `nil`, a known API is kept, anything else is refused as Auth0 does.
    func audience(_ audience: String?) throws(OAuthError) -> String? {
        guard let audience else { return nil }
        guard audience == managementAudience || apis.contains(where: { $0.identifier == audience }) else {
            throw OAuthError(.accessDenied, "Service not found: \(audience)")
        }
        return audience
    }

    /// The scopes an audience defines.
    func apiScopes(for audience: String?) -> [String] {
        guard let audience else { return [] }
        if audience == managementAudience { return AuthEmulator.API.managementScopes }
        return apis.first { $0.identifier == audience }?.scopes ?? []
    }

    /// The granted scopes for a user grant: requested OIDC scopes plus requested scopes of the audience,
    /// in request order; unknown scopes are dropped.
    func userGrant(requested: String?, audience: String?) -> [String] {
        let requestedList = Self.split(requested) ?? Self.defaultScopes
        let allowed = Self.userScopes.union(apiScopes(for: audience))
        return Self.unique(requestedList.filter { allowed.contains($0) })
    }

    /// The granted scopes for client credentials: the requested scopes the client may have for `audience`, or
    /// all of them when none are named. The Management API needs a client grant (as in Auth0), and gives its
    /// machine-to-machine scopes; another API gives its scopes, or the client grant's share of them.
    func clientGrant(requested: String?, audience: String, client: AuthEmulator.Client) throws(OAuthError)
        -> [String]
    {
        let isManagement = audience == managementAudience
        let grant = client.clientGrants.first { ($0.audience ?? managementAudience) == audience }
        let defined = isManagement ? AuthEmulator.API.managementClientScopes : apiScopes(for: audience)
        if isManagement && grant == nil {
            throw OAuthError(
                .accessDenied,
                "Client is not authorized to access \"\(audience)\". You need to create a \"client-grant\" "
                    + "associated to this API.")
        }
        let allowed = grant.map { grant in defined.filter { grant.scopes.contains($0) } } ?? defined
        guard let requestedList = Self.split(requested) else { return allowed }
        return Self.unique(requestedList.filter { allowed.contains($0) })
    }

    /// Splits a space-separated scope string; `nil` when absent or blank.
    static func split(_ scope: String?) -> [String]? {
        guard let scope else { return nil }
        let parts = scope.split(separator: " ").map(String.init)
        return parts.isEmpty ? nil : parts
    }

    static func unique(_ scopes: [String]) -> [String] {
        var seen = Set<String>()
        return scopes.filter { seen.insert($0).inserted }
    }
}
