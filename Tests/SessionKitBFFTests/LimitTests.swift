import AuthEmulator
import Crypto
import Foundation
import NIOHTTP1
import SecureStore
import SessionKit
import SessionKitBFF
import SessionKitPostgres
import SessionKitServer
import SessionKitTesting
import Testing

/// Limits a stranger or a broken upstream cannot pass: the upstream's time (head and body), body sizes both
/// ways, and a session's absolute lifetime and idle timeout. The path allow-list and the sign-in cookies' limits are
/// in SessionKitBFFRouterTests.
@Suite("Limits", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct LimitTests {
    @Test(
        "an upstream that trickles, goes silent after its first byte, or never answers is cut off in time",
        arguments: [true, false])
    func stalledUpstream(onEventLoop: Bool) async throws {
        try await LiveEmulator.with { emulator in
            let upstream = try await StallingUpstream.start()
            let instance = try await InProcessInstance.start(
                emulator: emulator, store: try await BFFPostgres.Deployment().store(), upstream: upstream.url
            ) {
                $0.upstreamTimeout = .seconds(3)
                $0.upstreamReadTimeout = .seconds(1)
                $0.maxResponseBodySize = 1 << 20
                $0.forwardsOnEventLoop = onEventLoop
            }
            let browser = CookieBrowser()
            do {
                #expect(try await browser.signIn(through: instance.url).status == 303)
                let csrf = [("X-CSRF", "1")]
                // No head in time: 504.
                var started = ContinuousClock.now
                let late = try await browser.get(instance.at("/api/late"), headers: csrf)
                #expect(late.status == 504)
                #expect(ContinuousClock.now - started < .seconds(8), "cut at the 3 s deadline")
                // A head, then nothing: the read timeout ends the body (the browser sees it end early).
                for path in ["/api/silent", "/api/trickle", "/api/big"] {
                    started = ContinuousClock.now
                    let outcome: String
                    do {
                        let page = try await browser.get(instance.at(path), headers: csrf)
                        outcome = "\(page.status) with \(page.body.count) bytes"
                        #expect(page.body.count < 1 << 20 || page.status != 200, "\(path): never the whole body")
                    } catch {
                        outcome = "cut off: \(type(of: error))"
                    }
                    let took = ContinuousClock.now - started
                    #expect(took < .seconds(8), "\(path) was held for \(took) (\(outcome)); the limit is 3 s")
                }
                // The same with the length announced: such an answer is read whole before it is passed on, so
                // the browser gets a 504 rather than a 200 that ends early.
                for path in ["/api/trickle-announced", "/api/silent-announced"] {
                    started = ContinuousClock.now
                    let page = try await browser.get(instance.at(path), headers: csrf)
                    #expect(page.status == 504, "\(path)")
                    #expect(page.json["error"] as? String == "upstream_timeout", "\(path)")
                    #expect(ContinuousClock.now - started < .seconds(8), "\(path): cut at the 3 s deadline")
                }
                // A small answer that comes in pieces is passed on whole.
                let pieces = try await browser.get(instance.at("/api/pieces"), headers: csrf)
                #expect(pieces.status == 200)
                #expect(pieces.body == Data(StallingUpstream.pieces))
                // The instance still forwards.
                #expect(try await browser.get(instance.at("/api/ready"), headers: csrf).status == 200)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
            await upstream.stop()
        }
    }

    @Test("a request body over the limit: 413 before the upstream is called")
    func requestBodyLimit() async throws {
        let limited: (inout BackendForFrontend.Configuration) -> Void = { $0.maxRequestBodySize = 1024 }
        try await ForwardingTests.withSignedIn(configure: limited) { _, _, instance, browser in
            let headers = [("X-CSRF", "1"), ("Content-Type", "application/octet-stream")]
            let small = try await browser.send(
                .POST, instance.at("/api/up"), headers: headers, body: Data(count: 1000))
            #expect(small.status == 200)
            let big = try await browser.send(.POST, instance.at("/api/up"), headers: headers, body: Data(count: 5000))
            #expect(big.status == 413)
            #expect(big.json["error"] as? String == "request_too_large")
        }
    }

    @Test("a session past its absolute lifetime or idle timeout ends (401, and deleted), whatever its tokens say")
    func lifetimes() async throws {
        try await LiveEmulator.with { emulator in
            let store = try await BFFPostgres.Deployment().store()
            let instance = try await InProcessInstance.start(emulator: emulator, store: store) {
                $0.sessionLifetime = 3600
                $0.idleTimeout = 600
            }
            let browser = CookieBrowser()
            do {
                let ids = try await ExpiredSessions.create(3, emulator: emulator, store: store)
                let now = Date()
                let fresh = SealedCookies.session(ids[0], createdAt: now.addingTimeInterval(-60), seenAt: now)
                let old = SealedCookies.session(ids[1], createdAt: now.addingTimeInterval(-3601), seenAt: now)
                let idle = SealedCookies.session(
                    ids[2], createdAt: now.addingTimeInterval(-700), seenAt: now.addingTimeInterval(-601))
                let me = { (value: String) in
                    try await browser.send(
                        .GET, instance.at("/auth/me"), headers: [("Cookie", "sessionkit=\(value)")], cookies: false)
                }
                let live = try await me(fresh)
                #expect(live.status == 200)
                let reported = try #require(live.json["session_expires_at"] as? String)
                let expiry = try #require(try? Date(reported, strategy: .iso8601))
                #expect(abs(expiry.timeIntervalSince(now.addingTimeInterval(3540))) < 5, "start + lifetime")
                #expect(try await me(old).status == 401)
                #expect(try await me(idle).status == 401)
                for id in ids[1...] {
                    let reader = SessionManager(provider: instance.bff.provider, store: store, account: id.account)
                    #expect(try await reader.storedCredentials() == nil, "the ended session was deleted")
                }
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
        }
    }
}
