import Foundation
import Testing

@testable import SessionKit

/// `BackchannelPingReceiver`'s rules without a socket: which requests wake a sign-in, a ping that comes before the
/// provider's answer reached the client, and a sign-in forgotten once it ended.
@Suite("Backchannel ping receiver: what wakes a sign-in")
struct BackchannelPingReceiverTests {
    private static let now = Date(timeIntervalSince1970: 1_800_000_000)

    private static func ping(_ id: String) -> [UInt8] { Array(#"{"auth_req_id":"\#(id)"}"#.utf8) }

    @Test("a ping of a registered sign-in wakes it; anything else answers 401 or 400 and wakes nothing")
    func statuses() {
        let receiver = BackchannelPingReceiver()
        let registration = receiver.register(token: "token-1", now: Self.now)
        registration.activate(authReqID: "request-1", expiresAt: Self.now.addingTimeInterval(120))
        #expect(receiver.receive(authorization: nil, body: Self.ping("request-1")) == 401)
        #expect(receiver.receive(authorization: "Bearer token-2", body: Self.ping("request-1")) == 401)
        #expect(receiver.receive(authorization: "Bearer token-1 extra", body: Self.ping("request-1")) == 401)
        #expect(receiver.receive(authorization: "Bearer token-1", body: Self.ping("request-2")) == 400)
        #expect(receiver.receive(authorization: "Bearer token-1", body: Array(repeating: 32, count: 9000)) == 400)
        #expect(receiver.receive(authorization: "Bearer token-1", body: Array(#"{"auth_req_id":7}"#.utf8)) == 400)
        #expect(registration.signal.epoch == 0, "nothing woke the sign-in")
        #expect(receiver.receive(authorization: "BEARER  token-1", body: Self.ping("request-1")) == 204)
        #expect(registration.signal.epoch == 1)
        #expect(receiver.receive(authorization: "Bearer token-1", body: Self.ping("request-1")) == 204, "a replay")
        registration.forget()
        #expect(receiver.receive(authorization: "Bearer token-1", body: Self.ping("request-1")) == 401)
        #expect("\(receiver)" == "BackchannelPingReceiver(0 sign-ins waiting)")
    }

    @Test("a ping before the provider's answer wakes the sign-in once the answer names the same auth_req_id")
    func earlyPing() {
        let receiver = BackchannelPingReceiver()
        let same = receiver.register(token: "token-a", now: Self.now)
        let other = receiver.register(token: "token-b", now: Self.now)
        #expect(receiver.receive(authorization: "Bearer token-a", body: Self.ping("request-a")) == 204)
        #expect(receiver.receive(authorization: "Bearer token-b", body: Self.ping("forged")) == 204)
        same.activate(authReqID: "request-a", expiresAt: Self.now.addingTimeInterval(120))
        other.activate(authReqID: "request-b", expiresAt: Self.now.addingTimeInterval(120))
        #expect(same.signal.epoch == 1)
        #expect(other.signal.epoch == 0, "a ping naming another request wakes nothing")
    }

    @Test("expired sign-ins are dropped when another registers")
    func expiry() {
        let receiver = BackchannelPingReceiver()
        let old = receiver.register(token: "token-old", now: Self.now)
        old.activate(authReqID: "request-old", expiresAt: Self.now.addingTimeInterval(60))
        _ = receiver.register(token: "token-new", now: Self.now.addingTimeInterval(61))
        #expect(receiver.receive(authorization: "Bearer token-old", body: Self.ping("request-old")) == 401)
        #expect("\(receiver)".contains("1 sign-ins waiting"))
    }
}
