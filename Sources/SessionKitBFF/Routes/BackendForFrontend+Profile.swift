import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SessionKit
import SessionKitServer
import SessionKitSupport

extension BackendForFrontend {
    /// The largest `PATCH /auth/profile/metadata` body read, as Auth0 limits `user_metadata` (16 KB of JSON).
    static let metadataPatchLimit = 16 << 10

    /// `GET /auth/profile`: the signed-in user's profile and `user_metadata`, read through the Management API with
    /// the back end's own token; or 401. A Management API that cannot answer now gets a retryable 503, with the
    /// session and its cookie kept.
    func profile(_ request: Request) async -> Response {
        let state = await cookieSession(request)
        guard case .live(let session, let refresh) = state else { return noSession(state) }
        guard let management else { return signInRequired }
        let subject: String
        switch await signedInSubject(session) {
        case .success(let value): subject = value
        case .failure(let answer): return answer.response
        }
        do {
            let user = try await management.user(id: subject, fields: ProfileAnswer.fields)
            return Answers.json(.ok, profileAnswer(user), setCookies: refresh.map { [$0] } ?? [])
        } catch {
            return managementFailure(error)
        }
    }

    /// `PATCH /auth/profile/metadata`: merges a JSON object of allowed keys into the user's `user_metadata` (`null`
    /// deletes a key) and answers the updated profile. Forgery is checked as for logout; a key not allowed, or a
    /// body that is not a JSON object, is a 400 and changes nothing.
    func patchProfileMetadata(_ request: Request) async -> Response {
        if let refusal = forgeryCheck.refusal(for: request) { return refusal }
        let state = await cookieSession(request)
        guard case .live(let session, let refresh) = state else { return noSession(state) }
        guard let management, let allowed = configuration.profile?.editableMetadataKeys else { return signInRequired }
        let patch: [String: JSONValue]
        switch await MetadataPatch.read(request, allowed: allowed, limit: Self.metadataPatchLimit) {
        case .success(let value): patch = value
        case .failure(let refusal): return refusal.response
        }
        let subject: String
        switch await signedInSubject(session) {
        case .success(let value): subject = value
        case .failure(let answer): return answer.response
        }
        do {
            let user = try await management.patchUserMetadata(id: subject, patch)
            return Answers.json(.ok, profileAnswer(user), setCookies: refresh.map { [$0] } ?? [])
        } catch {
            return managementFailure(error)
        }
    }

    /// The user the session belongs to (its ID token's `sub`), its credentials renewed as `/auth/me` does, or the
    /// answer that says why not (the session ended, the store is down: ``SessionFailure``).
    private func signedInSubject(_ session: SessionCookie) async -> Result<String, RouteAnswer> {
        do {
            let credentials = try await sessions.credentials(for: session.id)
            guard let subject = credentials.idTokenClaims?.subject else {
                return .failure(
                    RouteAnswer(
                        response: Answers.error(
                            .internalServerError, "session_without_subject",
                            "The session has no ID token that names its user, so its profile cannot be found; the "
                                + "session is kept. Sign in again with the openid scope.")))
            }
            return .success(subject)
        } catch {
            return .failure(RouteAnswer(response: sessionFailure(error)))
        }
    }

    private func profileAnswer(_ user: JSONValue) -> JSONValue {
        ProfileAnswer.json(user, editable: configuration.profile?.editableMetadataKeys ?? [])
    }

    /// A Management API failure as an answer that keeps the session and its cookie: the provider's word on the
    /// user's session is not in it. Retryable failures are 503 with `Retry-After`.
    func managementFailure(_ error: SessionKitError) -> Response {
        logger?.notice(
            "profile: the Management API call failed",
            metadata: ["error": "\(error.code)", "status": "\(error.httpStatus.map(String.init) ?? "none")"])
        switch error.code {
        case .providerError where Self.refusesTheClient.contains(error.oauthError ?? ""):
            // The token endpoint's definitive word on the back end's client, not a failure to wait out.
            return profileNotConfigured(error)
        case .networkFailure, .timeout, .serverError, .invalidResponse, .providerError, .cancelled:
            return Answers.error(
                .serviceUnavailable, "profile_unavailable",
                "The identity provider's Management API could not answer right now; the session is kept. Try again "
                    + "shortly.", retryAfter: 5)
        case .rateLimited:
            return Answers.error(
                .serviceUnavailable, "profile_rate_limited",
                "The identity provider's Management API asks to slow down; the session is kept. Try again shortly.",
                retryAfter: 10)
        case .storeUnavailable:
            return Answers.error(
                .serviceUnavailable, "session_store_unavailable",
                "The session store cannot be reached right now; the session is kept. Try again shortly.", retryAfter: 1)
        case .invalidInput where error.httpStatus == 404:
            return Answers.error(
                .notFound, "user_not_found",
                "The identity provider has no such user any more; the session is kept. Sign out and in again.")
        case .invalidInput:
            return Answers.error(
                .badRequest, "invalid_metadata",
                "The identity provider refused the metadata"
                    + (error.oauthErrorDescription.map { " (\($0))" } ?? "") + "; change it and try again.")
        default:
            return profileNotConfigured(error)
        }
    }

    /// The token endpoint's refusals of the back end's client for its Management API token.
    static let refusesTheClient: Set<String> = [
        "access_denied", "unauthorized_client", "invalid_client", "invalid_scope", "unauthorized",
    ]

    private func profileNotConfigured(_ error: SessionKitError) -> Response {
        Answers.error(
            .internalServerError, "profile_not_configured",
            "The back end may not read or edit profiles at the identity provider (\(error.code)"
                + (error.oauthError.map { ", \($0)" } ?? "") + "): its client needs a client grant on the Management "
                + "API with read:users and update:users. The session is kept; the operator should check the "
                + "configuration and logs.")
    }
}
