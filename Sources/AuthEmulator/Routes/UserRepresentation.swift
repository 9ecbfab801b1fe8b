import Foundation
import SessionKitSupport

/// The Management API's JSON representation of a user, and the `fields` / `include_fields` filter.
enum UserRepresentation {
    static func json(_ user: AuthEmulator.User) -> [String: JSONValue] {
        let localID = user.id.split(separator: "|", maxSplits: 1).last.map(String.init) ?? user.id
        return [
            "user_id": .string(user.id),
            "email": .string(user.email),
            "email_verified": .bool(user.emailVerified),
            "name": .string(user.name),
            "nickname": .string(user.nickname),
            "picture": .string(user.picture),
            "identities": [
                [
                    "connection": .string(user.connection),
                    "provider": "auth0",
                    "user_id": .string(localID),
                    "isSocial": false,
                ]
            ],
            "user_metadata": .object(user.userMetadata),
            "app_metadata": .object(user.appMetadata),
        ]
    }

    /// Keeps only the listed top-level fields (`include_fields=true`, the default) or drops them (`false`).
    static func filter(
        _ object: [String: JSONValue],
        fields: String?,
        includeFields: String?
    ) throws(ManagementError) -> [String: JSONValue] {
        guard let fields, !fields.isEmpty else { return object }
        let names = Set(fields.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        let include: Bool
        switch includeFields?.lowercased() {
        case nil, "true": include = true
        case "false": include = false
        default: throw ManagementError.badRequest("include_fields must be true or false")
        }
        return object.filter { names.contains($0.key) == include }
    }

    /// Merges a `user_metadata` patch as Auth0 documents: top-level keys are merged, a nested object replaces
    /// the old value wholesale, and `null` deletes the key.
    static func merge(_ patch: [String: JSONValue], into metadata: [String: JSONValue]) -> [String: JSONValue] {
        var merged = metadata
        for (key, value) in patch {
            if value == .null {
                merged[key] = nil
            } else {
                merged[key] = value
            }
        }
        return merged
    }
}
