import Foundation
import SessionKitSupport

extension EmulatorState {
    /// Starts a device authorization; returns the device code and user code.
    func createDeviceCode(
        clientID: String,
        scopes: [String],
        audience: String?,
        lifetime: Double,
        interval: Int
    ) -> (deviceCode: String, userCode: String) {
        let deviceCode = SecureRandom.token()
        var userCode = SecureRandom.userCode()
        while devices.values.contains(where: { $0.userCode == userCode }) { userCode = SecureRandom.userCode() }
        let digest = Hex.sha256(deviceCode)
        devices[digest] = DeviceCodeRecord(
            digest: digest,
            userCode: userCode,
            clientID: clientID,
            scopes: scopes,
            audience: audience,
            expiresAt: clock.now.addingTimeInterval(lifetime),
            interval: interval
        )
        return (deviceCode, userCode)
    }

    /// A pending device authorization by its user code (dash and case ignored), unexpired.
    func pendingDevice(userCode: String) -> DeviceCodeRecord? {
        let wanted = Self.normalize(userCode)
        return devices.values.first {
            Self.normalize($0.userCode) == wanted && $0.status == .pending && $0.expiresAt > clock.now
        }
    }

    /// Approves or denies a pending device code; `false` when no such pending code exists.
    func decideDevice(userCode: String, approvedBy userID: String?) -> Bool {
        guard let record = pendingDevice(userCode: userCode) else { return false }
        let now = clock.now
        devices[record.digest]?.status = userID.map { .approved(userID: $0, authTime: now) } ?? .denied
        return true
    }

    /// Polls a device code (RFC 8628 §3.5): pending, slow_down (interval grows by 5 s), expired, denied,
    /// or the approval, which is handed out once.
    func pollDevice(_ deviceCode: String, clientID: String) -> Result<DeviceCodeRecord, OAuthError> {
        let digest = Hex.sha256(deviceCode)
        let now = clock.now
        guard var record = devices[digest], record.clientID == clientID else {
            return .failure(OAuthError(.invalidGrant, "Invalid or expired device code."))
        }
        defer { devices[digest] = record }
        if record.expiresAt <= now, record.status != .consumed {
            return .failure(OAuthError(.expiredToken, "The device code has expired."))
        }
        if let last = record.lastPolledAt, now.timeIntervalSince(last) < Double(record.interval) {
            record.interval += 5
            record.lastPolledAt = now
            return .failure(OAuthError(.slowDown, "You are polling faster than allowed; wait \(record.interval) s."))
        }
        record.lastPolledAt = now
        switch record.status {
        case .pending:
            return .failure(OAuthError(.authorizationPending, "User has yet to authorize device code."))
        case .denied:
            return .failure(OAuthError(.accessDenied, "User denied the authorization request."))
        case .consumed:
            return .failure(OAuthError(.invalidGrant, "Invalid or expired device code."))
        case .approved:
            let approved = record
            record.status = .consumed
            return .success(approved)
        }
    }

    private static func normalize(_ code: String) -> String {
        code.uppercased().filter { $0.isLetter || $0.isNumber }
    }
}
