/// A successful `/oauth/token` response body.
struct TokenResponse: Sendable, Codable, Equatable {
    var accessToken: String
    var tokenType = "Bearer"
    var expiresIn: Int
    var scope: String
    var idToken: String?
    var refreshToken: String?
    var issuedTokenType: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case scope
        case idToken = "id_token"
        case refreshToken = "refresh_token"
        case issuedTokenType = "issued_token_type"
    }
}
