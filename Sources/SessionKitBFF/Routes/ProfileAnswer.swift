import SessionKitSupport

/// The answer of `GET /auth/profile` and `PATCH /auth/profile/metadata`, a JSON document for the front end's
/// scripts as `/auth/me` (and Duende BFF's `/bff/user`) is: who is signed in, their profile from the Management
/// API, their `user_metadata`, and which of its keys they may change.
enum ProfileAnswer {
    /// The user fields asked of the Management API: those shown, and nothing else (never `app_metadata`).
    static let fields = ["user_id", "name", "nickname", "email", "email_verified", "picture", "user_metadata"]

    /// `{"signed_in": true, "sub", "name", "nickname", "email", "email_verified", "picture", "user_metadata",
    /// "editable_metadata_keys"}`, from the Management API's `user`.
    static func json(_ user: JSONValue, editable: Set<String>) -> JSONValue {
        var object: [String: JSONValue] = ["signed_in": true]
        object["sub"] = user["user_id"] ?? .null
        for field in ["name", "nickname", "email", "email_verified", "picture"] {
            object[field] = user[field] ?? .null
        }
        object["user_metadata"] = user["user_metadata"] ?? .object([:])
        object["editable_metadata_keys"] = .array(editable.sorted().map { .string($0) })
        return .object(object)
    }
}
