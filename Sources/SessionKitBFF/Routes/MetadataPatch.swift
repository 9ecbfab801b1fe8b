import Foundation
import HTTPTypes
import Hummingbird
import SessionKitSupport

/// The body of `PATCH /auth/profile/metadata`: a JSON object whose top-level keys are all on the allow-list.
enum MetadataPatch {
    /// The patch in `request`'s body, or the 4xx answer that says what is wrong with it.
    static func read(_ request: Request, allowed: Set<String>, limit: Int) async -> Result<
        [String: JSONValue], RouteAnswer
    > {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/json") else {
            return refusal(
                .unsupportedMediaType, "unsupported_media_type",
                "Send the metadata as a JSON object with Content-Type: application/json.")
        }
        guard let buffer = try? await request.body.collect(upTo: limit) else {
            return refusal(
                .contentTooLarge, "metadata_too_large",
                "The metadata patch is larger than \(limit) bytes; send only the keys that change.")
        }
        guard case .object(let patch)? = try? JSONValue(parsing: Data(buffer.readableBytesView)) else {
            return refusal(
                .badRequest, "invalid_metadata",
                "The body is not a JSON object; send {\"key\": value, ...} with the keys to change (null deletes one).")
        }
        let refused = patch.keys.filter { !allowed.contains($0) }.sorted()
        guard refused.isEmpty else {
            let allowedList = allowed.isEmpty ? "none" : allowed.sorted().joined(separator: ", ")
            return refusal(
                .badRequest, "metadata_key_not_allowed",
                "These user_metadata keys may not be changed here: \(refused.joined(separator: ", ")). The keys this "
                    + "back end lets users change: \(allowedList). Nothing was changed.")
        }
        return .success(patch)
    }

    private static func refusal(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Result<
        [String: JSONValue], RouteAnswer
    > {
        .failure(RouteAnswer(response: Answers.error(status, code, message)))
    }
}
