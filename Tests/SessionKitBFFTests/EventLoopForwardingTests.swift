import AuthEmulator
import Foundation
import NIOCore
import NIOHTTP1
import SessionKitTesting
import Testing

@testable import SessionKitBFF

/// The forwarding path on the event loop (`Configuration.forwardsOnEventLoop`): which requests it takes, that
/// answers keep the order of their requests whichever path answers them, and how it treats an upstream that drops
/// a kept-alive connection. What it forwards (headers, bodies, limits, timeouts) is checked on both paths by
/// ForwardingTests and LimitTests.
@Suite("Forwarding from the event loop", .enabled(if: BFFPostgres.shouldRun, BFFPostgres.skipNote))
struct EventLoopForwardingTests {
    @Test("a bodiless call with a live session in memory skips the router; a body, a refusal or the switch off take it")
    func whichPath() async throws {
        let routed = RoutedRequests()
        try await ForwardingTests.withSignedIn(routed: routed) { _, _, instance, browser in
            let csrf = [("X-CSRF", "1")]
            let signIn = routed.seen.count
            #expect(try await browser.get(instance.at("/api/orders/1"), headers: csrf).status == 200)
            #expect(try await browser.send(.DELETE, instance.at("/api/orders/1"), headers: csrf).status == 200)
            #expect(routed.seen.count == signIn, "the router saw \(routed.seen.dropFirst(signIn))")
            let post = try await browser.send(.POST, instance.at("/api/orders"), headers: csrf, body: Data("{}".utf8))
            #expect(post.status == 200)
            #expect(try await browser.get(instance.at("/api/orders/1")).status == 403, "no anti-forgery header")
            #expect(Array(routed.seen.dropFirst(signIn)) == ["/api/orders", "/api/orders/1"])
        }
        let off = RoutedRequests()
        let routerOnly: (inout BackendForFrontend.Configuration) -> Void = { $0.forwardsOnEventLoop = false }
        try await ForwardingTests.withSignedIn(routed: off, configure: routerOnly) { _, _, instance, browser in
            let page = try await browser.get(instance.at("/api/orders/1"), headers: [("X-CSRF", "1")])
            #expect(page.status == 200)
            #expect(off.seen.last == "/api/orders/1")
        }
    }

    @Test("a cookie last seen over a minute ago is sealed again on the forwarded answer", arguments: [true, false])
    func visitRecorded(onEventLoop: Bool) async throws {
        let routed = RoutedRequests()
        let path: (inout BackendForFrontend.Configuration) -> Void = { $0.forwardsOnEventLoop = onEventLoop }
        try await ForwardingTests.withSignedIn(routed: routed, configure: path) { _, _, instance, browser in
            let id = try #require(SealedCookies.id(fromCookie: browser.cookies["sessionkit"]))
            let now = Date()
            let stale = SealedCookies.session(
                id, createdAt: now.addingTimeInterval(-130), seenAt: now.addingTimeInterval(-120))
            browser.setCookie("sessionkit", stale)
            let page = try await browser.get(instance.at("/api/orders/1"), headers: [("X-CSRF", "1")])
            #expect(page.status == 200)
            let resealed = try #require(browser.cookies["sessionkit"])
            #expect(resealed != stale, "the cookie was written again")
            #expect(SealedCookies.id(fromCookie: resealed) == id, "for the same session")
            #expect(routed.seen.contains("/api/orders/1") == !onEventLoop)
        }
    }

    @Test("past the calls under way per upstream and event loop, calls take the router's path")
    func busyUpstream() async throws {
        let upstream = try await StallingUpstream.start()
        let routed = RoutedRequests()
        try await LiveEmulator.with { emulator in
            let instance = try await InProcessInstance.start(
                emulator: emulator, store: try await BFFPostgres.Deployment().store(), upstream: upstream.url,
                routed: routed
            ) {
                $0.upstreamTimeout = .seconds(2)
                $0.eventLoopExchangesPerUpstream = 1
            }
            let browser = CookieBrowser()
            do {
                #expect(try await browser.signIn(through: instance.url).status == 303)
                // One more call than the server has event loops, each on a connection of its own: two of them
                // share a loop, and the later of those finds its one place taken.
                let calls = NIOSingletons.groupLoopCountSuggestion + 1
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<calls {
                        group.addTask {
                            try await browser.get(instance.at("/api/late"), headers: [("X-CSRF", "1")]).status
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses == Array(repeating: 504, count: calls))
                let viaRouter = routed.seen.filter { $0 == "/api/late" }.count
                #expect(viaRouter >= 1 && viaRouter < calls, "\(viaRouter) of \(calls) through the router")
                // Once they have ended, the places are free again.
                #expect(try await browser.get(instance.at("/api/ready"), headers: [("X-CSRF", "1")]).status == 200)
                #expect(!routed.seen.contains("/api/ready"))
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
        }
        await upstream.stop()
    }

    @Test("sessionkit-bff --no-event-loop-forwarding: the example forwards through its router, and signs in")
    func exampleFlag() async throws {
        try await LiveEmulator.with { emulator in
            let folder = try TemporaryFolder(prefix: "sessionkit-bff-router")
            defer { folder.remove() }
            let keyFile = try ProcessInstance.keyFile(for: BFFPostgres.Deployment(), in: folder)
            let instance = try await ProcessInstance.startInMemory(
                emulator: emulator, keyFile: keyFile, extraArguments: ["--no-event-loop-forwarding"])
            let browser = CookieBrowser()
            do {
                #expect(try await browser.signIn(through: instance.url).status == 303)
                let userinfo = try await browser.get(instance.at("/api/userinfo"), headers: [("X-CSRF", "1")])
                #expect(userinfo.status == 200 && userinfo.json["email"] as? String == AuthEmulator.User.aliceEmail)
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
        }
    }

    @Test("pipelined requests are answered in their order, whichever path answers each")
    func pipelinedOrder() async throws {
        try await ForwardingTests.withSignedIn { _, _, instance, browser in
            let cookie = try #require(browser.cookies["sessionkit"])
            let port = try #require(instance.url.port)
            func request(_ path: String, last: Bool = false) -> String {
                "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: sessionkit=\(cookie)\r\nX-CSRF: 1\r\n"
                    + (last ? "Connection: close\r\n" : "") + "\r\n"
            }
            // The event loop takes the first; the others wait for its answer, then /auth/me goes to the router,
            // and the two after it follow it there, since the router's answer comes first.
            let requests =
                request("/api/first") + request("/auth/me") + request("/api/second") + request("/api/third")
                + request("/auth/me", last: true)
            let answers = try #require(await RawHTTP.pipelined(requests, port: port))
            #expect(answers.components(separatedBy: "HTTP/1.1 200 OK").count - 1 == 5, "\(answers.prefix(300))")
            let order = ["first", "signed_in", "second", "third"].compactMap { answers.range(of: $0)?.lowerBound }
            let lastMe = answers.range(of: "signed_in", options: .backwards)?.lowerBound
            #expect(order.count == 4 && order == order.sorted(), "answers out of order")
            #expect(lastMe.map { me in order.allSatisfy { $0 < me } } == true, "the last /auth/me answered last")
        }
    }

    @Test("an upstream that drops a kept-alive connection: GET and DELETE go once more on a new one, a POST does not")
    func droppedConnection() async throws {
        let upstream = try ClosingUpstream()
        defer { upstream.stop() }
        let routed = RoutedRequests()
        try await LiveEmulator.with { emulator in
            let instance = try await InProcessInstance.start(
                emulator: emulator, store: try await BFFPostgres.Deployment().store(), upstream: upstream.url,
                routed: routed)
            let browser = CookieBrowser()
            do {
                #expect(try await browser.signIn(through: instance.url).status == 303)
                let cookie = try #require(browser.cookies["sessionkit"])
                let port = try #require(instance.url.port)
                func request(_ method: String, _ path: String, last: Bool = false) -> String {
                    "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: sessionkit=\(cookie)\r\n"
                        + "X-CSRF: 1\r\nContent-Length: 0\r\n" + (last ? "Connection: close\r\n" : "") + "\r\n"
                }
                // One browser connection, so one event loop and one pool: the second and third requests find
                // the upstream connection the one before them left idle, which the upstream drops.
                let requests =
                    request("GET", "/api/a") + request("DELETE", "/api/b") + request("POST", "/api/c", last: true)
                let answers = try #require(await RawHTTP.pipelined(requests, port: port))
                let statuses = answers.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
                #expect(statuses == ["200", "200", "502"], "\(answers.prefix(400))")
                #expect(answers.contains("upstream_unavailable"))
                let seen = upstream.seen
                // a on the first connection; b dropped on it and sent again on a second; c dropped there.
                #expect(seen.requests == 4 && seen.connections == 2 && seen.dropped == 2, "\(seen)")
                #expect(!routed.seen.contains { $0.hasPrefix("/api/") }, "all three on the event loop")
            } catch {
                Issue.record(error)
            }
            await browser.shutdown()
            await instance.stop()
        }
    }
}
