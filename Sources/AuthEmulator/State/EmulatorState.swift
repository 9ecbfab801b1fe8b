import Foundation
import Logging
import SessionKitSupport

/// All mutable emulator state, serialized by the actor so concurrent requests and test controls never race.
actor EmulatorState {
    var users: [String: AuthEmulator.User]
    var grants: [String: GrantRecord] = [:]
    var refreshTokens: [String: RefreshTokenRecord] = [:]
    var accessTokens: [String: AccessTokenRecord] = [:]
    /// How many remembered access tokens make ``recordAccessToken(jti:grantID:expiresAt:)`` drop the expired ones.
    var accessTokenSweepAt = firstAccessTokenSweep
    static let firstAccessTokenSweep = 1_024
    var codes: [String: AuthorizationCodeRecord] = [:]
    var devices: [String: DeviceCodeRecord] = [:]
    var sessions: [String: BrowserSession] = [:]
    /// Users whose refresh grants are answered `mfa_required` unless the grant's sign-in met an `acr`
    /// (test controls; not persisted).
    var usersRequiringMultiFactor: Set<String> = []
    var keys: [SigningKey] = []
    let stateFile: String?
    let clock: EmulatorClock
    let logger: Logger

    init(users: [AuthEmulator.User], snapshot: StateSnapshot?, stateFile: String?, clock: EmulatorClock, logger: Logger)
    {
        self.users = Dictionary(users.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        self.stateFile = stateFile
        self.clock = clock
        self.logger = logger
        if let snapshot {
            for user in snapshot.users { self.users[user.id] = user }
            self.grants = snapshot.grants
            self.refreshTokens = snapshot.refreshTokens
            self.accessTokens = snapshot.accessTokens
            self.sessions = snapshot.sessions
            self.keys = snapshot.keys
        }
    }

    // MARK: Users

    func user(id: String) -> AuthEmulator.User? { users[id] }

    /// Finds a user by id or email (case-insensitive email, as Auth0 database connections).
    func user(idOrEmail: String) -> AuthEmulator.User? {
        users[idOrEmail] ?? users.values.first { $0.email.lowercased() == idOrEmail.lowercased() }
    }

    /// Checks a username (email) and password; the realm, when given, must be the user's connection.
    func authenticate(username: String, password: String, realm: String? = nil) -> AuthEmulator.User? {
        guard let user = users.values.first(where: { $0.email.lowercased() == username.lowercased() }) else {
            return nil
        }
        let passwordMatches = ConstantTime.equals(user.password, password)
        guard passwordMatches, realm == nil || realm == user.connection else { return nil }
        return user
    }

    func replaceUserMetadata(userID: String, with metadata: [String: JSONValue]) -> AuthEmulator.User? {
        guard var user = users[userID] else { return nil }
        user.userMetadata = metadata
        users[userID] = user
        persist()
        return user
    }

    // MARK: Keys and persistence

    func setKeys(_ keys: [SigningKey]) {
        self.keys = keys
        persist()
    }

    /// Writes the state file when one is configured; failures are logged, never fatal to a request.
    func persist() {
        guard let stateFile else { return }
        let snapshot = StateSnapshot(
            users: Array(users.values),
            grants: grants,
            refreshTokens: refreshTokens,
            accessTokens: accessTokens,
            sessions: sessions,
            keys: keys,
            clockOffset: clock.currentOffset
        )
        do {
            try snapshot.save(to: stateFile)
        } catch {
            logger.warning("Could not save emulator state", metadata: ["error": "\(error)"])
        }
    }
}
