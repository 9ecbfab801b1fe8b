import Crypto
import Foundation
import SessionKitSupport

extension EmulatorState {
    /// Stores an authorization code and returns its value.
    func issueCode(_ record: AuthorizationCodeRecord) -> String {
        let code = SecureRandom.token()
        var record = record
        record.digest = Hex.sha256(code)
        codes[record.digest] = record
        let now = clock.now
        codes = codes.filter { $0.value.expiresAt.addingTimeInterval(600) > now }
        return code
    }

    /// Redeems a code once: client, redirect URI, expiry and PKCE are checked; a second use revokes the grant
    /// the first use produced (RFC 6749 §4.1.2).
    func redeemCode(
        _ code: String,
        clientID: String,
        redirectURI: String?,
        verifier: String?,
        dpopJKT: String? = nil
    ) -> Result<AuthorizationCodeRecord, OAuthError> {
        let invalid = OAuthError(.invalidGrant, "Invalid authorization code")
        let digest = Hex.sha256(code)
        guard var record = codes[digest] else { return .failure(invalid) }
        guard !record.redeemed else {
            if let grantID = record.grantID { revokeGrant(id: grantID) }
            return .failure(invalid)
        }
        guard record.clientID == clientID else { return .failure(invalid) }
        guard record.expiresAt > clock.now else { return .failure(invalid) }
        guard redirectURI == record.redirectURI else {
            return .failure(OAuthError(.invalidGrant, "The redirect_uri does not match the one used at /authorize."))
        }
        if let challenge = record.codeChallenge {
            guard let verifier else {
                return .failure(OAuthError(.invalidRequest, "Missing required parameter: code_verifier"))
            }
            guard Self.isValidVerifier(verifier), Self.pkceChallenge(for: verifier) == challenge else {
                return .failure(OAuthError(.invalidGrant, "Failed to verify code verifier"))
            }
        }
        if let bound = record.dpopJKT, bound != dpopJKT {
            return .failure(
                OAuthError(
                    .invalidGrant,
                    "The code was requested with a DPoP key (pushed authorization request); redeem it with a proof of "
                        + "that key."))
        }
        record.redeemed = true
        codes[digest] = record
        return .success(record)
    }

    /// Links a redeemed code to the grant it produced.
    func attach(grantID: String, toCode code: String) {
        codes[Hex.sha256(code)]?.grantID = grantID
    }

    /// A verifier is 43–128 characters of `[A-Za-z0-9-._~]` (RFC 7636 §4.1).
    static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.count)
            && verifier.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (CharacterSet.alphanumerics.contains(scalar) || "-._~".unicodeScalars.contains(scalar))
            }
    }

    /// The S256 challenge of a verifier: base64url(SHA-256(verifier)) (RFC 7636 §4.2).
    static func pkceChallenge(for verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }
}
