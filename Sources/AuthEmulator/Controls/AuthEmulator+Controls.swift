public import Foundation

extension AuthEmulator {
    /// Test controls for an emulator started with `testControlsEnabled`.
    ///
    /// Every method throws ``AuthEmulatorError/Code/controlsDisabled`` when controls are off. State changes go
    /// through the emulator's actors, so a control takes effect before the next request is handled.
    ///
    /// ```swift
    /// try await emulator.controls.advanceClock(by: 3601)          // expire one-hour tokens
    /// try await emulator.controls.inject(.status(503).times(2), into: .token)
    /// let counts = try await emulator.controls.requestCounts()
    /// ```
    public struct Controls: Sendable {
        let core: EmulatorCore

        func enabled() throws {
            guard core.configuration.testControlsEnabled else {
                throw AuthEmulatorError(
                    code: .controlsDisabled, message: "Start the emulator with testControlsEnabled to use controls")
            }
        }

        /// The emulator's current time.
        public func now() throws -> Date {
            try enabled()
            return core.clock.now
        }

        /// Moves the emulator clock forward; expiry decisions and the `Date` header follow it at once.
        public func advanceClock(by seconds: Double) async throws {
            try enabled()
            guard seconds.isFinite, seconds >= 0, seconds < 1e10 else {
                throw AuthEmulatorError(code: .invalidConfiguration, message: "The clock only moves forward")
            }
            core.clock.advance(by: seconds)
            await core.state.persist()
        }

        /// Makes a new signing key current; the old one stays in the JWKS for the configured overlap.
        /// - Returns: The new key's `kid`.
        @discardableResult
        public func rotateSigningKeys() async throws -> String {
            try enabled()
            do {
                let kid = try await core.keys.rotate(now: core.clock.now)
                await core.state.setKeys(await core.keys.all)
                return kid
            } catch {
                throw AuthEmulatorError(code: .signing, message: "Key rotation failed", underlyingError: error)
            }
        }

        /// The `kid` of the key signing new tokens.
        public func currentKeyID() async throws -> String {
            try enabled()
            return await core.keys.currentKID
        }

        /// Revokes every grant of a user (all refresh token families and their access tokens), and sends a logout
        /// token naming the user (`sub`, no `sid`) to each client that held one of those grants and has a
        /// back-channel logout URI, waiting for the deliveries (see ``backchannelDeliveries()``). The user's SSO
        /// sessions stay; ``endSessions(forUser:)`` ends them too.
        /// - Returns: How many live grants were revoked.
        @discardableResult
        public func revokeGrants(forUser userID: String) async throws -> Int {
            try enabled()
            guard await core.state.user(id: userID) != nil else {
                throw AuthEmulatorError(code: .notFound, message: "No user \(userID)")
            }
            let revoked = await core.state.revokeGrants(userID: userID)
            _ = await BackchannelLogout(core: core).userLoggedOut(userID, atClients: Set(revoked.map(\.clientID)))
            return revoked.count
        }

        /// Makes refresh grants of `userID` answer `mfa_required` (HTTP 403, with an `mfa_token`) as Auth0 does when
        /// an action demands multi-factor authentication, until switched off; the refresh token is not spent.
        /// Grants whose sign-in asked for `acr_values` are let through: the emulator has no second factor and
        /// takes such a sign-in as having met it.
        public func requireMultiFactor(forUser userID: String, _ required: Bool = true) async throws {
            try enabled()
            guard await core.state.user(id: userID) != nil else {
                throw AuthEmulatorError(code: .notFound, message: "No user \(userID)")
            }
            await core.state.setMultiFactorRequired(required, forUser: userID)
        }

        /// Makes DPoP proofs need the emulator's nonce, or not (``Configuration/dpopNonceRequired``).
        public func setDPoPNonceRequired(_ required: Bool) async throws {
            try enabled()
            await core.dpop.setRequiresNonce(required)
        }

        /// Replaces the DPoP nonce, as a provider does from time to time: the next proof made with the old one is
        /// answered `use_dpop_nonce` with the new one. Returns the new nonce.
        @discardableResult
        public func rotateDPoPNonce() async throws -> String {
            try enabled()
            return await core.dpop.rotateNonce()
        }

        /// Adds a fault to an endpoint; several faults on one endpoint apply in the order added.
        public func inject(_ fault: Fault, into endpoint: Endpoint) async throws {
            try enabled()
            await core.faults.inject(fault, into: endpoint)
        }

        /// Removes the faults of one endpoint, or of every endpoint when `endpoint` is `nil`.
        public func clearFaults(_ endpoint: Endpoint? = nil) async throws {
            try enabled()
            await core.faults.clear(endpoint)
        }

        /// Approves a pending device code (by its user code) for a user, as if they signed in at `/activate`.
        public func approveDevice(userCode: String, userID: String) async throws {
            try enabled()
            guard await core.state.user(id: userID) != nil else {
                throw AuthEmulatorError(code: .notFound, message: "No user \(userID)")
            }
            guard await core.state.decideDevice(userCode: userCode, approvedBy: userID) else {
                throw AuthEmulatorError(code: .notFound, message: "No pending device code \(userCode)")
            }
        }

        /// Denies a pending device code (by its user code).
        public func denyDevice(userCode: String) async throws {
            try enabled()
            guard await core.state.decideDevice(userCode: userCode, approvedBy: nil) else {
                throw AuthEmulatorError(code: .notFound, message: "No pending device code \(userCode)")
            }
        }

        /// Requests seen per endpoint and per grant type since start or the last reset.
        public func requestCounts() async throws -> RequestCounts {
            try enabled()
            return await core.faults.requestCounts()
        }

        /// Resets the request counts to zero.
        public func resetRequestCounts() async throws {
            try enabled()
            await core.faults.resetCounts()
        }
    }
}
