public import SessionKitSupport

extension AuthEmulator {
    /// A database-connection account that can sign in.
    public struct User: Sendable, Codable, Equatable, CustomStringConvertible {
        /// The user id and `sub`, e.g. `auth0|65a1f0c0ffee000000000001`.
        public var id: String
        /// The email address; also the username for password sign-in.
        public var email: String
        /// The password. A fixture value for a local emulator; never printed.
        public var password: String
        /// Whether the email is verified.
        public var emailVerified: Bool
        /// The full name.
        public var name: String
        /// The nickname.
        public var nickname: String
        /// A picture URL.
        public var picture: String
        /// The connection (realm) the user belongs to. Default `Username-Password-Authentication`.
        public var connection: String
        /// Metadata the user may edit (Management API `user_metadata`).
        public var userMetadata: [String: JSONValue]
        /// Metadata only the application may edit (`app_metadata`).
        public var appMetadata: [String: JSONValue]

        /// The default database connection name, as in a new Auth0 tenant.
        public static let defaultConnection = "Username-Password-Authentication"

        /// Creates a user.
        public init(
            id: String,
            email: String,
            password: String,
            emailVerified: Bool = true,
            name: String,
            nickname: String,
            picture: String = "https://example.com/avatar.png",
            connection: String = User.defaultConnection,
            userMetadata: [String: JSONValue] = [:],
            appMetadata: [String: JSONValue] = [:]
        ) {
            self.id = id
            self.email = email
            self.password = password
            self.emailVerified = emailVerified
            self.name = name
            self.nickname = nickname
            self.picture = picture
            self.connection = connection
            self.userMetadata = userMetadata
            self.appMetadata = appMetadata
        }

        /// The user without the password.
        public var description: String { "User(\(id), \(email), password <REDACTED>)" }

        private enum CodingKeys: String, CodingKey {
            case id, email, password, emailVerified, name, nickname, picture, connection, userMetadata, appMetadata
        }

        /// Decodes a user; `id`, `email` and `password` are required.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.id = try c.decode(String.self, forKey: .id)
            self.email = try c.decode(String.self, forKey: .email)
            self.password = try c.decode(String.self, forKey: .password)
            self.emailVerified = try c.decodeIfPresent(Bool.self, forKey: .emailVerified) ?? true
            self.name = try c.decodeIfPresent(String.self, forKey: .name) ?? email
            self.nickname =
                try c.decodeIfPresent(String.self, forKey: .nickname)
                ?? String(email.split(separator: "@").first ?? "")
            self.picture = try c.decodeIfPresent(String.self, forKey: .picture) ?? "https://example.com/avatar.png"
            self.connection = try c.decodeIfPresent(String.self, forKey: .connection) ?? User.defaultConnection
            self.userMetadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .userMetadata) ?? [:]
            self.appMetadata = try c.decodeIfPresent([String: JSONValue].self, forKey: .appMetadata) ?? [:]
        }
    }
}

extension AuthEmulator.User {
    /// The first seeded user's id.
    public static let aliceID = "auth0|65a1f0c0ffee000000000001"
    /// The first seeded user's email (username).
    public static let aliceEmail = "alice@example.com"
    /// The first seeded user's password. A public demo fixture.
    public static let alicePassword = "alice-demo-password"
    /// The second seeded user's id.
    public static let bobID = "auth0|65a1f0c0ffee000000000002"
    /// The second seeded user's email (username).
    public static let bobEmail = "bob@example.com"
    /// The second seeded user's password. A public demo fixture.
    public static let bobPassword = "bob-demo-password"

    /// The first seeded user, Alice, with a verified email and some metadata.
    public static let alice = AuthEmulator.User(
        id: aliceID,
        email: aliceEmail,
        password: alicePassword,
        name: "Alice Example",
        nickname: "alice",
        picture: "https://example.com/avatars/alice.png",
        userMetadata: ["theme": "dark", "preferences": ["language": "en", "newsletter": true]],
        appMetadata: ["plan": "pro", "roles": ["admin"]]
    )

    /// The second seeded user, Bob, whose email is not verified.
    public static let bob = AuthEmulator.User(
        id: bobID,
        email: bobEmail,
        password: bobPassword,
        emailVerified: false,
        name: "Bob Example",
        nickname: "bob",
        picture: "https://example.com/avatars/bob.png",
        userMetadata: [:],
        appMetadata: ["plan": "free"]
    )
}
