import SessionKit

extension Configure {
    /// The `configure` options that save an endpoint, named once: for the options themselves, and for the advice
    /// sessionctl gives when the provider's discovery document lacks one (``SessionKitError/messageForCLI(profile:)``).
    enum EndpointOption {
        static let authorization = "authorization-endpoint"
        static let token = "token-endpoint"
        static let userInfo = "userinfo-endpoint"
        static let revocation = "revocation-endpoint"
        static let deviceAuthorization = "device-endpoint"
        static let jwks = "jwks-uri"

        /// The option that saves `endpoint`; `nil` for one that sessionctl has no setting for (end-session).
        static func name(for endpoint: ProviderEndpoint) -> String? {
            switch endpoint {
            case .authorization: authorization
            case .token: token
            case .userInfo: userInfo
            case .revocation: revocation
            case .deviceAuthorization: deviceAuthorization
            case .jwks: jwks
            default: nil
            }
        }
    }
}
