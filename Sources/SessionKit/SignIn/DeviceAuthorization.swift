import SessionKitSupport

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A device-authorization grant in progress (RFC 8628): what to show the user, and what polling needs.
public struct DeviceAuthorization: Sendable, CustomStringConvertible {
    /// The code the user types at ``verificationURI``.
    public let userCode: String
    /// Where the user goes to enter the code.
    public let verificationURI: URL
    /// A URL that carries the code already, for a QR code or a link.
    public let verificationURIComplete: URL?
    /// When the device code expires.
    public let expiresAt: Date
    /// The seconds to wait between polls, as the provider asked.
    public let interval: TimeInterval
    /// The device code, sent only when polling.
    let deviceCode: Secret

    /// What to show the user; never the device code.
    public var description: String {
        "DeviceAuthorization(user_code: \(userCode), verification_uri: \(verificationURI.absoluteString))"
    }
}

extension ProviderClient {
    /// Starts a device-authorization grant: show the user ``DeviceAuthorization/userCode`` and
    /// ``DeviceAuthorization/verificationURI``, then call ``pollDeviceAuthorization(_:)``.
    public func startDeviceAuthorization(scope: String? = nil, audience: String? = nil) async throws(SessionKitError)
        -> DeviceAuthorization
    {
        let url = try await metadata().endpoint(.deviceAuthorization)
        let scopes = try await scopeParameters(scope: scope, audience: audience)
        let response = try await postForm(scopes, to: url, endpoint: "device-authorization endpoint")
        guard response.status == 200 else {
            throw await explainingScope(
                providerFailure(response, endpoint: "device-authorization endpoint"), asked: scopes[0].1)
        }
        guard let object = (try? JSONValue(parsing: response.body))?.objectValue,
            let deviceCode = object["device_code"]?.stringValue, let userCode = object["user_code"]?.stringValue,
            let uri = (object["verification_uri"] ?? object["verification_url"])?.stringValue.flatMap(
                URL.init(string:)),
            let expiresIn = object["expires_in"]?.doubleValue
        else {
            throw SessionKitError(
                code: .invalidResponse,
                message: "the device-authorization answer lacks device_code, user_code, verification_uri or expires_in"
            )
        }
        let complete = object["verification_uri_complete"]?.stringValue.flatMap(URL.init(string:))
        // What the user is shown and types: a code or a link with a terminal control in it could be neither shown
        // safely nor typed, so it is refused rather than altered.
        let shown = [userCode, uri.absoluteString, complete?.absoluteString ?? ""]
        guard !shown.contains(where: { $0.unicodeScalars.contains(where: \.isTerminalControl) }) else {
            throw SessionKitError(
                code: .invalidResponse,
                message: "the device-authorization answer's user_code or verification_uri holds control characters; "
                    + "it cannot be shown to the user safely, so the provider's answer was refused")
        }
        let interval = object["interval"]?.doubleValue ?? 5
        // Numbers from the network become sleeps and deadlines: refuse any that cannot be one.
        guard expiresIn.isFinite, expiresIn > 0, expiresIn <= 86_400, interval.isFinite, (0...600).contains(interval)
        else {
            throw SessionKitError(
                code: .invalidResponse,
                message: "the device-authorization answer's expires_in (1 s to 1 day) or interval (0 to 600 s) "
                    + "is out of range; the provider sent something no client can wait for"
            )
        }
        return DeviceAuthorization(
            userCode: userCode,
            verificationURI: uri,
            verificationURIComplete: complete,
            expiresAt: clock.now().addingTimeInterval(expiresIn),
            interval: interval,
            deviceCode: Secret(deviceCode)
        )
    }

    /// Polls until the user approves or denies, honouring `interval` and `slow_down` (which adds 5 s).
    ///
    /// - Parameter onPending: Called after each `authorization_pending`, for a spinner.
    /// - Throws: ``SessionKitError/Code/providerError`` with `access_denied` or `expired_token`.
    public func pollDeviceAuthorization(
        _ authorization: DeviceAuthorization,
        onPending: @Sendable () -> Void = {}
    ) async throws(SessionKitError) -> Credentials {
        let parameters = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ("device_code", authorization.deviceCode.unsafeRawValue),
        ]
        return try await pollTokenEndpoint(
            parameters, interval: authorization.interval, flow: "device sign-in", onPending: onPending)
    }
}
