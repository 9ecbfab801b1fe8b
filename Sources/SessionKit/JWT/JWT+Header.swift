public import SessionKitSupport

extension JWT {
    /// The JOSE header of a JWT.
    public struct Header: Sendable, Equatable {
        /// The signing algorithm (`alg`), such as `RS256`; `none` for an unsecured token.
        public let algorithm: String
        /// The key id (`kid`), which names the signing key in the issuer's JWKS.
        public let keyID: String?
        /// The media type (`typ`), such as `JWT` or `at+jwt`.
        public let type: String?
        /// Every header parameter, by name.
        public let parameters: [String: JSONValue]

        init(_ parameters: [String: JSONValue]) throws(JWTDecodingError) {
            guard let alg = parameters["alg"] else {
                throw JWTDecodingError(code: .member, part: .header, reason: "the 'alg' parameter is missing")
            }
            guard let algorithm = alg.stringValue, !algorithm.isEmpty else {
                throw JWTDecodingError(
                    code: .member, part: .header, reason: "the 'alg' parameter is a \(alg.typeName), not a name")
            }
            for name in ["kid", "typ"] {
                if let value = parameters[name], value.stringValue == nil {
                    throw JWTDecodingError(
                        code: .member, part: .header, reason: "the '\(name)' parameter must be a string")
                }
            }
            self.algorithm = algorithm
            self.keyID = parameters["kid"]?.stringValue
            self.type = parameters["typ"]?.stringValue
            self.parameters = parameters
        }
    }
}
