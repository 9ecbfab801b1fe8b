public import Foundation

extension BackendForFrontend {
    /// What the profile routes may do: `GET /auth/profile` reads the signed-in user's profile and `user_metadata`,
    /// `PATCH /auth/profile/metadata` changes the keys of `user_metadata` listed here, both through Auth0's
    /// Management API with the back end's own client-credentials token (never the user's).
    ///
    /// The back end's client needs a client grant on the Management API with `read:users` and `update:users`.
    ///
    /// ```swift
    /// configuration.profile = .init(editableMetadataKeys: ["theme", "language"])
    /// ```
    public struct ProfileRoutes: Sendable {
        /// The top-level `user_metadata` keys a user may change; a patch naming any other key is refused with 400.
        public var editableMetadataKeys: Set<String>
        /// The Management API's audience; `nil`: `<issuer>api/v2/`.
        public var managementAudience: String?
        /// Where the Management API is; `nil`: `<issuer>api/v2/` (Auth0's, when the issuer is a custom domain,
        /// is on the tenant's own domain: give it here).
        public var managementBaseURL: URL?
        /// The scopes asked for the back end's token, space-separated.
        public var scope: String

        /// Profile routes that let users change `editableMetadataKeys` of their `user_metadata`.
        public init(
            editableMetadataKeys: Set<String>, managementAudience: String? = nil, managementBaseURL: URL? = nil,
            scope: String = "read:users update:users"
        ) {
            self.editableMetadataKeys = editableMetadataKeys
            self.managementAudience = managementAudience
            self.managementBaseURL = managementBaseURL
            self.scope = scope
        }
    }
}
