import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Turns request and response contents into text safe for a log line: names stay, secret values go.
enum Redaction {
    /// Parameter and member names whose values are secrets wherever they appear.
    static let secretNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "code", "code_verifier", "password", "client_secret",
        "subject_token", "actor_token", "device_code", "token", "client_assertion", "otp", "recovery_code",
        "authorization", "cookie", "set-cookie", "user_code", "dpop", "auth_req_id", "client_notification_token",
    ]

    /// Request parameters whose values are logged: protocol fields, never a secret or personal data.
    static let loggedParameterNames: Set<String> = [
        "grant_type", "scope", "audience", "client_id", "redirect_uri", "response_type", "token_type_hint",
        "subject_token_type", "requested_token_type", "code_challenge_method", "realm", "prompt", "max_age",
    ]

    /// `name=value&...` with every value but those of ``loggedParameterNames`` replaced by `<redacted>`
    /// (secrets, and personal data such as a username).
    static func form(_ parameters: [(String, String)]) -> String {
        parameters.map { name, value in
            "\(name)=\(loggedParameterNames.contains(name.lowercased()) ? value : "<redacted>")"
        }.joined(separator: "&")
    }

    /// Response members whose values are logged: protocol fields that never carry a secret or personal data.
    /// Every other member is logged by name only, whatever it holds (an `mfa_token`, an email address).
    static let loggedValueNames: Set<String> = [
        "token_type", "expires_in", "scope", "issued_token_type", "error", "error_description", "error_uri",
        "interval", "issuer",
    ]

    /// A JSON body's member names, with the values of ``loggedValueNames`` only, or `<n bytes, not JSON>`.
    static func json(_ body: Data) -> String {
        guard let value = try? JSONValue(parsing: body), case .object(let object) = value else {
            return "<\(body.count) bytes, not a JSON object>"
        }
        return object.keys.sorted().map { name in
            let value = object[name] ?? .null
            guard loggedValueNames.contains(name.lowercased()) else { return name }
            switch value {
            case .string(let text): return "\(name)=\(text.count > 200 ? "<\(text.count) chars>" : text)"
            case .object, .array: return "\(name)=<\(value.typeName)>"
            default: return "\(name)=\((try? value.jsonData()).flatMap { String(data: $0, encoding: .utf8) } ?? "?")"
            }
        }.joined(separator: " ")
    }

    /// Header fields with the values of credential-bearing headers replaced.
    static func headers(_ headers: [(name: String, value: String)]) -> String {
        headers.map { "\($0.name): \(secretNames.contains($0.name.lowercased()) ? "<redacted>" : $0.value)" }
            .joined(separator: ", ")
    }
}
