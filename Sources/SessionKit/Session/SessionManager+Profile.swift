import SessionKitSupport

extension SessionManager {
    /// Fetches the user's profile from the provider's userinfo endpoint and caches it with the session.
    ///
    /// This is also the remote validity check: a token the provider no longer accepts is renewed once
    /// and the request repeated. When the provider cannot be reached, the cached profile is returned.
    ///
    /// - Throws: ``SessionKitError/Code/signInRequired`` when the session ended; a retryable error when
    ///   offline and nothing is cached; ``SessionKitError/Code/validationFailed`` (check `subject`, not
    ///   retryable, the session kept, nothing cached) when the answer names another user than the ID token.
    public func userInfo() async throws(SessionKitError) -> UserProfile {
        do {
            let credentials = try await credentials()
            let profile: UserProfile
            do {
                profile = try await provider.userInfo(
                    accessToken: credentials.accessToken, tokenType: credentials.tokenType)
            } catch  where error.oauthError == "invalid_token" {
                let renewed = try await renew()
                profile = try await provider.userInfo(accessToken: renewed.accessToken, tokenType: renewed.tokenType)
            }
            try Self.checkSubject(of: profile, against: credentials)
            try await cacheProfile(profile)
            return profile
        } catch  where error.isRetryable {
            if let cached = try await cachedProfile() { return cached }
            throw error
        }
    }

    /// OpenID Connect Core 5.3.2: the `sub` of a UserInfo answer must be the ID token's, or none of its
    /// values may be used. Without an ID token (a plain OAuth provider) there is nothing to compare with.
    static func checkSubject(of profile: UserProfile, against credentials: Credentials) throws(SessionKitError) {
        guard let expected = credentials.idTokenClaims?.subject, profile.subject != expected else { return }
        throw SessionKitError(
            code: .validationFailed,
            message: "the userinfo answer names another user than the ID token (its sub differs); it was refused "
                + "and nothing was cached. The session is kept; this is the provider's fault, report it",
            failedCheck: .subject
        )
    }

    /// The profile cached by the last ``userInfo()`` (or a management update), without the network.
    public func cachedProfile() async throws(SessionKitError) -> UserProfile? {
        try await currentRecord().profile
    }

    /// Stores `profile` with the session, if a session is still stored.
    func cacheProfile(_ profile: UserProfile) async throws(SessionKitError) {
        try await updateRecord { stored in
            guard stored.credentials != nil else { return nil }
            var next = stored
            next.profile = profile
            return next
        }
    }

    /// Replaces the cached profile's `user_metadata` with `metadata`, as a management update returned it.
    func cacheUserMetadata(_ metadata: JSONValue) async throws(SessionKitError) {
        try await updateRecord { stored in
            guard stored.credentials != nil else { return nil }
            var next = stored
            var claims = stored.profile?.claims ?? [:]
            claims["user_metadata"] = metadata
            next.profile = UserProfile(claims: claims)
            return next
        }
    }
}
