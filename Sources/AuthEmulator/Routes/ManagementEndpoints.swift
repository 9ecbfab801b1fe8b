import Foundation
import Hummingbird
import HummingbirdAnswers
import JWTKit
import SessionKitSupport

/// The Management API subset for one user: `GET` and `PATCH /api/v2/users/{id}`, called by a signed-in user on
/// themself (`read:current_user`, `update:current_user_metadata`) or by a back end with a client-credentials token
/// on any user (`read:users`, `update:users`).
struct ManagementEndpoints: Sendable {
    let core: EmulatorCore
    /// The largest `user_metadata` Auth0 accepts (16 KB of JSON).
    static let metadataLimit = 16 * 1024

    func register(on router: Router<EmulatorRequestContext>) {
        router.get("api/v2/users/:id") { request, context -> Response in
            do throws(ManagementError) {
                let user = try await authorize(
                    request, context: context, ownScope: "read:current_user", clientScope: "read:users")
                let query = RequestParameters.query(of: request)
                let body = try UserRepresentation.filter(
                    UserRepresentation.json(user),
                    fields: query["fields"],
                    includeFields: query["include_fields"]
                )
                return Answer.json(body)
            } catch {
                return error.response
            }
        }
        router.patch("api/v2/users/:id") { request, context -> Response in
            var request = request
            do throws(ManagementError) {
                let user = try await authorize(
                    request, context: context, ownScope: "update:current_user_metadata", clientScope: "update:users")
                let patch = try await metadataPatch(&request)
                let merged = UserRepresentation.merge(patch, into: user.userMetadata)
                try Self.checkSize(merged)
                guard let updated = await core.state.replaceUserMetadata(userID: user.id, with: merged) else {
                    throw ManagementError.userNotFound
                }
                return Answer.json(UserRepresentation.json(updated))
            } catch {
                return error.response
            }
        }
    }

    /// Checks the Bearer token: valid and for the Management API; a client-credentials token with `clientScope`
    /// (any user), or a user's token with `ownScope` for the path's own user.
    private func authorize(
        _ request: Request,
        context: EmulatorRequestContext,
        ownScope: String,
        clientScope: String
    ) async throws(ManagementError) -> AuthEmulator.User {
        let claims: AccessTokenClaims
        do {
            claims = try await ResourceAuthorization(core: core).claims(of: request)
        } catch .missingToken {
            throw .missingToken
        } catch {
            throw .invalidToken
        }
        guard claims.aud.value.contains(core.managementAudience) else { throw .invalidToken }
        let raw = context.parameters.get("id") ?? ""
        let id = raw.contains("%") ? (raw.removingPercentEncoding ?? raw) : raw
        if claims.gty == "client-credentials" {
            guard claims.scopes.contains(clientScope) else { throw .insufficientScope(clientScope) }
        } else {
            guard claims.scopes.contains(ownScope) else { throw .insufficientScope(ownScope) }
            guard id == claims.sub else {
                throw ManagementError(
                    status: .forbidden, message: "You may only access your own user.", errorCode: "insufficient_scope")
            }
        }
        guard let user = await core.state.user(id: id) else { throw .userNotFound }
        return user
    }

    private func metadataPatch(_ request: inout Request) async throws(ManagementError) -> [String: JSONValue] {
        guard let buffer = try? await request.collectBody(upTo: 64 * 1024) else {
            throw ManagementError(status: .contentTooLarge, message: "Payload too large", errorCode: "invalid_body")
        }
        guard let body = try? JSONDecoder().decode(JSONValue.self, from: Data(buffer.readableBytesView)),
            case .object(let object) = body
        else { throw .badRequest("Payload validation error: 'Expected type object but found another type'.") }
        if let extra = object.keys.sorted().first(where: { $0 != "user_metadata" }) {
            throw .badRequest("Payload validation error: 'Additional properties not allowed: \(extra)'.")
        }
        guard case .object(let patch)? = object["user_metadata"] else {
            throw .badRequest("Payload validation error: 'user_metadata' must be an object.")
        }
        try Self.checkSize(patch)
        return patch
    }

    private static func checkSize(_ metadata: [String: JSONValue]) throws(ManagementError) {
        let size = (try? JSONEncoder().encode(JSONValue.object(metadata)).count) ?? Int.max
        guard size <= metadataLimit else {
            throw .badRequest("Payload validation error: 'user_metadata' exceeds \(metadataLimit) bytes.")
        }
    }
}
