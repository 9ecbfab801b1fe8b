import HTTPTypes

/// Why a forwarded request has no answer from its upstream, and what the browser is told: the same on both
/// forwarding paths (AsyncHTTPClient's and the event loop's). The session is kept in every case.
enum UpstreamFailure: Error, Sendable {
    /// It could not be reached, or the connection failed before its answer began.
    case unavailable
    /// Its answer began but ended early.
    case cutShort
    /// No answer by the deadline, or silent past the read timeout.
    case timedOut
    /// Its answer is larger than the back end passes on.
    case tooLarge

    var status: HTTPResponse.Status {
        switch self {
        case .timedOut: .gatewayTimeout
        case .unavailable, .cutShort, .tooLarge: .badGateway
        }
    }

    /// The error answer's `error`.
    var code: String {
        switch self {
        case .unavailable, .cutShort: "upstream_unavailable"
        case .timedOut: "upstream_timeout"
        case .tooLarge: "upstream_response_too_large"
        }
    }

    /// The error answer's `message`: what happened and what to do.
    var message: String {
        switch self {
        case .unavailable: "The API cannot be reached; try again later."
        case .cutShort: "The API's answer was cut short; try again."
        case .timedOut: "The API did not answer in time; try again."
        case .tooLarge: "The API's answer is larger than this server passes on."
        }
    }
}
