import Foundation

/// Turns request and response contents into text safe for a log line: names stay, secret values go.
enum Redaction {
    /// Parameter and member names whose values are secrets wherever they appear.
    static let secretNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "code", "code_verifier", "password", "client_secret",
        "subject_token", "actor_token", "device_code", "token", "client_assertion", "otp", "recovery_code",
        "authorization", "cookie", "set-cookie", "user_code",
    ]

    /// `name=value&...` with secret values replaced by `<redacted>`.
    static func form(_ parameters: [(String, String)]) -> String {
        parameters.map { name, value in
            "\(name)=\(secretNames.contains(name.lowercased()) ? "<redacted>" : value)"
        }.joined(separator: "&")
    }

    /// A JSON body's member names with secret values replaced, or `<n bytes, not JSON>`.
    static func json(_ body: Data) -> String {
        guard let value = try? JSONValue(parsing: body), case .object(let object) = value else {
            return "<\(body.count) bytes, not a JSON object>"
        }
        return object.keys.sorted().map { name in
            let value = object[name] ?? .null
            if secretNames.contains(name.lowercased()) { return "\(name)=<redacted>" }
            switch value {
            case .string(let text): return "\(name)=\(text.count > 80 ? "<\(text.count) chars>" : text)"
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
