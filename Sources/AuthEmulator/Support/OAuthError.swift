import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAnswers
import SessionKitSupport

/// An OAuth 2.0 error (RFC 6749 §5.2, RFC 8628 §3.5, RFC 6750 §3.1) answered as `{error, error_description}`.
struct OAuthError: Error, Sendable {
    /// The `error` code.
    struct Code: RawRepresentable, Hashable, Sendable {
        var rawValue: String

        static let invalidRequest = Code(rawValue: "invalid_request")
        static let invalidClient = Code(rawValue: "invalid_client")
        static let invalidGrant = Code(rawValue: "invalid_grant")
        static let unauthorizedClient = Code(rawValue: "unauthorized_client")
        static let unsupportedGrantType = Code(rawValue: "unsupported_grant_type")
        static let unsupportedResponseType = Code(rawValue: "unsupported_response_type")
        static let invalidScope = Code(rawValue: "invalid_scope")
        static let accessDenied = Code(rawValue: "access_denied")
        static let authorizationPending = Code(rawValue: "authorization_pending")
        static let slowDown = Code(rawValue: "slow_down")
        static let expiredToken = Code(rawValue: "expired_token")
        static let invalidToken = Code(rawValue: "invalid_token")
        static let loginRequired = Code(rawValue: "login_required")
        static let serverError = Code(rawValue: "server_error")
        static let mfaRequired = Code(rawValue: "mfa_required")
        static let invalidDPoPProof = Code(rawValue: "invalid_dpop_proof")
        static let useDPoPNonce = Code(rawValue: "use_dpop_nonce")
        /// A `request_uri` that is expired, used or unknown (RFC 9101 section 6.2, used by RFC 9126).
        static let invalidRequestURI = Code(rawValue: "invalid_request_uri")
        /// A `login_hint` that names no known user (OpenID CIBA Core section 13).
        static let unknownUserID = Code(rawValue: "unknown_user_id")
        /// A `binding_message` that is too long or holds characters that cannot be shown (CIBA Core section 13).
        static let invalidBindingMessage = Code(rawValue: "invalid_binding_message")
    }

    let code: Code
    let description: String
    /// Members sent beside `error` and `error_description`, such as Auth0's `mfa_token`.
    let extra: [String: String]
    /// The nonce to send in a `DPoP-Nonce` header, with `use_dpop_nonce`.
    var dpopNonce: String?

    init(_ code: Code, _ description: String, extra: [String: String] = [:]) {
        self.code = code
        self.description = description
        self.extra = extra
    }

    /// The HTTP status Auth0 uses for this error: 401 for a bad client, 403 for a refused grant (Auth0 answers
    /// `invalid_grant` and `access_denied` with 403, so clients must key on `error`, not the status), else 400.
    var status: HTTPResponse.Status {
        switch code {
        case .invalidClient, .invalidToken: .unauthorized
        case .invalidGrant, .accessDenied, .unauthorizedClient, .mfaRequired: .forbidden
        case .serverError: .internalServerError
        default: .badRequest
        }
    }

    /// The JSON error response, with `Cache-Control: no-store`.
    var response: Response {
        var members = extra.mapValues { JSONValue.string($0) }
        members["error"] = .string(code.rawValue)
        members["error_description"] = .string(description)
        var response = Answer.json(members, status: status)
        if code == .invalidClient {
            response.headers[.wwwAuthenticate] = "Basic realm=\"oauth\""
        }
        if let dpopNonce { response.headers[HTTPField.Name("DPoP-Nonce")!] = dpopNonce }
        return response
    }
}
