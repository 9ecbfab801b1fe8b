import Hummingbird
import HummingbirdAnswers
import SessionKitSupport

/// A Management API error in Auth0's shape: `{statusCode, error, message, errorCode}`.
struct ManagementError: Error, Sendable {
    let status: HTTPResponse.Status
    let message: String
    let errorCode: String

    var response: Response {
        var response = Answer.json(
            [
                "statusCode": .int(Int(status.code)),
                "error": .string(status.reasonPhrase),
                "message": .string(message),
                "errorCode": .string(errorCode),
            ],
            status: status
        )
        if status == .unauthorized {
            response.headers[.wwwAuthenticate] = "Bearer error=\"invalid_token\""
        }
        return response
    }

    static let missingToken = ManagementError(
        status: .unauthorized, message: "Missing authentication", errorCode: "missing_authorization")
    static let invalidToken = ManagementError(
        status: .unauthorized, message: "Invalid token", errorCode: "invalid_token")
    static let userNotFound = ManagementError(
        status: .notFound, message: "The user does not exist.", errorCode: "inexistent_user")

    static func insufficientScope(_ scope: String) -> ManagementError {
        ManagementError(
            status: .forbidden,
            message: "Insufficient scope, expected any of: \(scope)",
            errorCode: "insufficient_scope"
        )
    }

    static func badRequest(_ message: String) -> ManagementError {
        ManagementError(status: .badRequest, message: message, errorCode: "invalid_body")
    }
}
