extension AuthEmulator {
    /// An emulator endpoint, the unit for fault injection and request counting.
    public enum Endpoint: String, Sendable, Codable, CodingKeyRepresentable, CaseIterable {
        /// `GET /.well-known/openid-configuration`.
        case discovery
        /// `GET /.well-known/jwks.json`.
        case jwks
        /// `GET /authorize` and the sign-in form's `POST /u/login`.
        case authorize
        /// `POST /oauth/token`.
        case token
        /// `POST /oauth/device/code`.
        case deviceAuthorization
        /// `GET`/`POST /activate`.
        case activate
        /// `GET`/`POST /userinfo`.
        case userinfo
        /// `POST /oauth/revoke`.
        case revoke
        /// The Management API subset under `/api/v2/`.
        case management
        /// `GET`/`POST /oidc/logout`, the end-session endpoint (OIDC RP-Initiated Logout 1.0).
        case endSession
        /// `POST /oauth/par`, the pushed authorization request endpoint (RFC 9126).
        case pushedAuthorization
        /// `POST /bc-authorize`, the backchannel authentication endpoint (OpenID CIBA Core 1.0).
        case backchannelAuthentication

        /// The endpoint serving `path`, or `nil` for test-control and unknown paths.
        init?(path: String) {
            switch path {
            case "/.well-known/openid-configuration": self = .discovery
            case "/.well-known/jwks.json": self = .jwks
            case "/authorize", "/u/login": self = .authorize
            case "/oauth/token": self = .token
            case "/oauth/device/code": self = .deviceAuthorization
            case "/activate": self = .activate
            case "/userinfo": self = .userinfo
            case "/oauth/revoke": self = .revoke
            case "/oidc/logout": self = .endSession
            case "/oauth/par": self = .pushedAuthorization
            case "/bc-authorize": self = .backchannelAuthentication
            default:
                guard path.hasPrefix("/api/v2/") else { return nil }
                self = .management
            }
        }
    }

    /// How many requests each endpoint received (faulted ones included), and `/oauth/token` per grant type.
    public struct RequestCounts: Sendable, Codable, Equatable {
        /// Requests per endpoint.
        public var byEndpoint: [Endpoint: Int]
        /// `/oauth/token` requests per `grant_type` wire value (`"none"` when absent).
        public var byGrantType: [String: Int]

        /// Creates counts (empty by default).
        public init(byEndpoint: [Endpoint: Int] = [:], byGrantType: [String: Int] = [:]) {
            self.byEndpoint = byEndpoint
            self.byGrantType = byGrantType
        }

        /// The count for an endpoint, zero when it saw no request.
        public subscript(endpoint: Endpoint) -> Int { byEndpoint[endpoint] ?? 0 }

        /// The `/oauth/token` count for a grant type, zero when it saw no request.
        public subscript(grantType: GrantType) -> Int { byGrantType[grantType.rawValue] ?? 0 }
    }
}
