#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension ProviderClient {
    /// An authorization-code request that asks for what `challenge` names: its `acr_values` (OpenID Connect
    /// Core §3.1.2.1) and `max_age`, with `prompt=login` when neither narrows the request, so that the user
    /// authenticates again instead of being let through on the provider's existing session.
    ///
    /// Sign the user in with it as with any authorization request, then store the credentials: the session's
    /// refresh token is replaced by one from the stronger sign-in. With `deferringPush`, a push that is due is left to ``pushed(_:)``, as for the plain request.
    public func authorizationRequest(
        redirectURI: URL, stepUp challenge: StepUpChallenge, audience: String? = nil, deferringPush: Bool = false
    ) async throws(SessionKitError) -> AuthorizationRequest {
        var parameters: [String: String] = [:]
        if !challenge.acrValues.isEmpty { parameters["acr_values"] = challenge.acrValues.joined(separator: " ") }
        let prompt = challenge.acrValues.isEmpty && challenge.maxAge == nil ? "login" : nil
        return try await authorizationRequest(
            redirectURI: redirectURI, audience: audience, prompt: prompt,
            maxAge: challenge.maxAge.map(TimeInterval.init), additionalParameters: parameters,
            deferringPush: deferringPush)
    }
}
