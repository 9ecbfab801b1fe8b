import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAnswers
import SessionKitSupport

/// How the emulator's resource endpoints (`/userinfo`, the Management API) accept an access token: a bearer token
/// as `Authorization: Bearer`, a DPoP-bound one (`cnf.jkt`) only as `Authorization: DPoP` with a proof for this
/// request, signed by the key the token is bound to (RFC 9449 section 7).
struct ResourceAuthorization: Sendable {
    let core: EmulatorCore

    /// Why a request was not authorized.
    enum Failure: Error {
        case missingToken
        case invalidToken
        case proof(DPoPVerifier.Refusal)
    }

    /// The claims of the request's valid access token, presented as its binding requires.
    func claims(of request: Request) async throws(Failure) -> AccessTokenClaims {
        guard let header = request.headers[.authorization], let space = header.firstIndex(of: " ") else {
            throw .missingToken
        }
        let scheme = header[..<space].lowercased()
        let token = header[space...].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, let claims = await AccessTokenValidator(core: core).validate(token) else {
            throw .invalidToken
        }
        switch (scheme, claims.cnf) {
        case ("bearer", nil):
            return claims
        case ("dpop", let confirmation?):
            do throws(DPoPVerifier.Refusal) {
                guard let proof = try DPoPVerifier.proof(in: request) else {
                    throw .invalid("A DPoP-bound access token needs a DPoP proof.")
                }
                let url = core.issuer + request.uri.path.dropFirst()
                let jkt = try await DPoPVerifier(core: core).verify(
                    proof, method: request.method.rawValue, url: url, accessToken: token)
                guard jkt == confirmation.jkt else {
                    throw .invalid("The DPoP proof is signed by another key than the token is bound to.")
                }
                return claims
            } catch {
                throw .proof(error)
            }
        default:
            // A bound token sent as a bearer token, or an unbound one as DPoP.
            throw .invalidToken
        }
    }

    /// The 401 answer for `failure`: the `WWW-Authenticate` challenge, and for `use_dpop_nonce` the nonce.
    static func unauthorized(_ failure: Failure) -> Response {
        let (challenge, description, nonce): (String, String, String?) =
            switch failure {
            case .missingToken, .invalidToken:
                (
                    "Bearer error=\"invalid_token\", error_description=\"The access token is invalid or expired\"",
                    "The access token is missing, invalid or expired.", nil
                )
            case .proof(.invalid(let reason)):
                ("DPoP error=\"invalid_dpop_proof\", algs=\"ES256\"", reason, nil)
            case .proof(.useNonce(let nonce)):
                ("DPoP error=\"use_dpop_nonce\", algs=\"ES256\"", "A DPoP nonce is required.", nonce)
            }
        let error: String =
            switch failure {
            case .proof(.invalid): "invalid_dpop_proof"
            case .proof(.useNonce): "use_dpop_nonce"
            default: "invalid_token"
            }
        var response = Answer.json(
            ["error": .string(error), "error_description": .string(description)], status: .unauthorized)
        response.headers[.wwwAuthenticate] = challenge
        if let nonce { response.headers[HTTPField.Name("DPoP-Nonce")!] = nonce }
        return response
    }
}
