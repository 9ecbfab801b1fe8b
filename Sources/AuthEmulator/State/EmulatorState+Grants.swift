import Foundation
import Logging
import SessionKitSupport

extension EmulatorState {
    /// Starts a new grant (family) and returns it.
    func createGrant(
        userID: String?,
        clientID: String,
        scopes: [String],
        audience: String?,
        authTime: Date?,
        nonce: String? = nil,
        sid: String? = nil,
        acr: String? = nil,
        dpopJKT: String? = nil
    ) -> GrantRecord {
        let grant = GrantRecord(
            id: SecureRandom.token(byteCount: 12),
            userID: userID,
            clientID: clientID,
            scopes: scopes,
            audience: audience,
            createdAt: clock.now,
            authTime: authTime,
            nonce: nonce,
            sid: sid,
            acr: acr,
            dpopJKT: dpopJKT
        )
        grants[grant.id] = grant
        persist()
        return grant
    }

    /// Switches the `mfa_required` answer to refresh grants of `userID` on or off.
    func setMultiFactorRequired(_ required: Bool, forUser userID: String) {
        if required {
            usersRequiringMultiFactor.insert(userID)
        } else {
            usersRequiringMultiFactor.remove(userID)
        }
    }

    /// Issues a refresh token in `grantID`'s family and returns its value.
    func issueRefreshToken(grantID: String) -> String {
        let token = SecureRandom.token()
        let now = clock.now
        let digest = Hex.sha256(token)
        refreshTokens[digest] = RefreshTokenRecord(digest: digest, grantID: grantID, createdAt: now, lastUsedAt: now)
        persist()
        return token
    }

    /// Records an access token's `jti` under its grant. Expired ones are dropped once their number has doubled
    /// since the last sweep: a grant costs the same whether the emulator remembers ten tokens or a million (a
    /// sweep on every grant made a long benchmark's grants slower and slower).
    func recordAccessToken(jti: String, grantID: String, expiresAt: Date) {
        accessTokens[jti] = AccessTokenRecord(jti: jti, grantID: grantID, expiresAt: expiresAt)
        if accessTokens.count >= accessTokenSweepAt {
            let now = clock.now
            accessTokens = accessTokens.filter { $0.value.expiresAt > now }
            accessTokenSweepAt = max(Self.firstAccessTokenSweep, 2 * accessTokens.count)
        }
        persist()
    }

    /// Whether an access token is still live: known, unexpired and its grant not revoked.
    func isAccessTokenActive(jti: String) -> Bool {
        guard let record = accessTokens[jti], record.expiresAt > clock.now,
            let grant = grants[record.grantID]
        else { return false }
        return !grant.revoked
    }

    /// The outcome of presenting a refresh token.
    enum RefreshOutcome: Sendable {
        /// The grant to issue from, and the new refresh token when rotation is on.
        case accepted(GrantRecord, newRefreshToken: String?)
        case refused(OAuthError)
    }

    /// The grant a live refresh token belongs to, without redeeming it: what a refresh grant may ask is checked
    /// before the token is spent.
    func grant(forRefreshToken token: String) -> GrantRecord? {
        guard let record = refreshTokens[Hex.sha256(token)], let grant = grants[record.grantID],
            !grant.revoked
        else { return nil }
        return grant
    }

    /// Redeems a refresh token atomically: expiry, client binding, rotation and reuse detection.
    func redeemRefreshToken(
        _ token: String,
        clientID: String,
        rotation: AuthEmulator.RefreshTokenRotation,
        lifetimes: AuthEmulator.TokenLifetimes
    ) -> RefreshOutcome {
        let invalid = OAuthError(.invalidGrant, "Unknown or invalid refresh token.")
        let now = clock.now
        let digest = Hex.sha256(token)
        guard var record = refreshTokens[digest], let grant = grants[record.grantID], !grant.revoked else {
            return .refused(invalid)
        }
        guard grant.clientID == clientID else { return .refused(invalid) }
        if now.timeIntervalSince(grant.createdAt) > lifetimes.refreshTokenAbsolute
            || now.timeIntervalSince(record.lastUsedAt) > lifetimes.refreshTokenIdle
        {
            return .refused(OAuthError(.invalidGrant, "The refresh token has expired."))
        }
        if let userID = grant.userID, usersRequiringMultiFactor.contains(userID), grant.acr == nil {
            // As Auth0 does when an action demands MFA on refresh: the token is not spent.
            return .refused(
                OAuthError(
                    .mfaRequired, "Multifactor authentication required",
                    extra: ["mfa_token": SecureRandom.token(byteCount: 16)]))
        }
        guard rotation.enabled else {
            record.lastUsedAt = now
            refreshTokens[digest] = record
            persist()
            return .accepted(grant, newRefreshToken: nil)
        }
        if let spentAt = record.spentAt {
            let isPrevious = grant.lastRotatedDigest == digest
            guard isPrevious, now.timeIntervalSince(spentAt) < rotation.reuseInterval else {
                revokeGrant(id: grant.id)
                logger.debug("Refresh token reuse detected; family revoked", metadata: ["grant": "\(grant.id)"])
                return .refused(invalid)
            }
        } else {
            record.spentAt = now
            grants[grant.id]?.lastRotatedDigest = digest
        }
        record.lastUsedAt = now
        refreshTokens[digest] = record
        return .accepted(grant, newRefreshToken: issueRefreshToken(grantID: grant.id))
    }

    /// Revokes a grant: its refresh tokens and access tokens stop working.
    func revokeGrant(id: String) {
        guard var grant = grants[id] else { return }
        grant.revoked = true
        grants[id] = grant
        refreshTokens = refreshTokens.filter { $0.value.grantID != id }
        persist()
    }

    /// Revokes the family of a refresh token, if `clientID` owns it. Unknown tokens are ignored (RFC 7009 §2.2).
    func revokeRefreshToken(_ token: String, clientID: String) -> Bool {
        guard let record = refreshTokens[Hex.sha256(token)], let grant = grants[record.grantID] else {
            return true
        }
        guard grant.clientID == clientID else { return false }
        revokeGrant(id: grant.id)
        return true
    }

    /// Revokes every grant of a user; returns the grants that were live.
    func revokeGrants(userID: String) -> [GrantRecord] {
        let live = grants.values.filter { $0.userID == userID && !$0.revoked }
        for grant in live { revokeGrant(id: grant.id) }
        return live
    }
}
