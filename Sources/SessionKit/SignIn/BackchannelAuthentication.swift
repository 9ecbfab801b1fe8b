#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A backchannel authentication in progress (OpenID CIBA Core 1.0, poll or ping mode): the provider is asking the user
/// to approve the sign-in on their own device; ``ProviderClient/pollBackchannelSignIn(_:onPending:)`` waits for them.
///
/// Its `auth_req_id` is a secret: whoever holds it (with the client's credentials) gets the user's tokens once they
/// approve. It is sent only when polling and never printed, logged or described; nor is a ping-mode request's
/// `client_notification_token`.
public struct BackchannelAuthentication: Sendable, CustomStringConvertible {
    /// The message shown on the user's device, which they should also see here to know it is this sign-in they
    /// approve (`binding_message`); `nil` when none was sent.
    public let bindingMessage: String?
    /// When the request expires; the user must approve before then.
    public let expiresAt: Date
    /// The seconds to wait between polls, as the provider asked.
    public let interval: TimeInterval
    /// The `auth_req_id`, sent only when polling.
    let authReqID: Secret
    /// In ping mode, where the request waits for its pings; `nil` in poll mode.
    let ping: BackchannelPingRegistration?

    /// Whether the provider pings the client when the user decides (ping mode, with a ``BackchannelPingReceiver``),
    /// so that polling ends early; `false` in poll mode.
    public var receivesPings: Bool { ping != nil }

    /// What to show; never the `auth_req_id` or the `client_notification_token`.
    public var description: String {
        let message = bindingMessage.map { "binding_message: \($0), " } ?? ""
        let mode = ping == nil ? "poll" : "ping"
        return "BackchannelAuthentication(\(message)expires_at: \(expiresAt), interval: \(interval) s, mode: \(mode))"
    }
}
