import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import SessionKit
import SessionKitServer
import Tracing

/// The forwarding path that runs on the browser's connection's event loop, without the router, Swift's tasks or
/// AsyncHTTPClient (``BackendForFrontend/Configuration/forwardsOnEventLoop``): it takes the requests whose every
/// check can be made without waiting (a bodiless request with the anti-forgery header, an allowed path, a live
/// session cookie, a bearer token for the API valid in memory, a plain-HTTP upstream) and
/// leaves all the others, and every refusal, to the router's forwarding route, so that each answer but the
/// upstream's own is made in one place.
struct EventLoopForwarding: Sendable {
    let configuration: BackendForFrontend.Configuration
    let cookies: SessionCookies
    let forgeryCheck: RequestForgeryCheck
    let sessions: SessionDirectory
    let metrics: ForwardingMetrics
    let headersNotForwarded: Set<String>
    let targets: [(target: ForwardTarget, endpoint: PlainHTTPEndpoint)]
    let pools: UpstreamPools

    /// `nil` when no forwarding target has a plain-HTTP upstream.
    init?(
        configuration: BackendForFrontend.Configuration, cookies: SessionCookies, forgeryCheck: RequestForgeryCheck,
        sessions: SessionDirectory, metrics: ForwardingMetrics, headersNotForwarded: Set<String>,
        targets: [ForwardTarget]
    ) {
        let plain = targets.compactMap { target in PlainHTTPEndpoint(base: target.base).map { (target, $0) } }
        guard configuration.forwardsOnEventLoop, !plain.isEmpty else { return nil }
        self.configuration = configuration
        self.cookies = cookies
        self.forgeryCheck = forgeryCheck
        self.sessions = sessions
        self.metrics = metrics
        self.headersNotForwarded = headersNotForwarded
        self.targets = plain
        self.pools = UpstreamPools(maxBusy: configuration.eventLoopExchangesPerUpstream)
    }

    /// How to forward `request` from `loop`, or `nil` when the router's forwarding route is to take it.
    func plan(_ request: HTTPTypes.HTTPRequest, on loop: any EventLoop) -> ForwardingPlan? {
        let fields = request.headerFields
        guard request.method != .head, request.method != .connect, let path = request.path,
            fields[.transferEncoding] == nil, fields[.contentLength] == nil || fields[.contentLength] == "0",
            let (target, endpoint) = targets.first(where: { Self.path(path, isUnder: $0.target.mount) }),
            forgeryCheck.apiRefusalReason(fields) == nil,
            let forwarded = ForwardedPath.validated(path, under: target.mount),
            let value = CookieHeader.value(named: cookies.sessionName, in: fields),
            var cookie = cookies.session(value: value)
        else { return nil }
        let now = Date()
        guard cookie.ended(at: now) == nil,
            let credentials = sessions.localCredentials(
                for: cookie.id, audience: target.api?.audience, scope: target.api?.scope,
                minTTL: configuration.minimumTokenLifetime),
            !credentials.isDPoPBound,
            let pool = loop.inEventLoop ? pools.pool(on: loop) : nil, pool.hasRoom(for: endpoint)
        else { return nil }
        var headers = HopByHopHeaders.upstream(fields, removing: headersNotForwarded)
        headers.add(name: "Host", value: endpoint.authority)
        headers.add(name: "Authorization", value: "Bearer " + credentials.accessToken.unsafeRawValue)
        let head = HTTPRequestHead(
            version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue),
            uri: endpoint.basePath + forwarded, headers: headers)
        // The visit is recorded in the cookie once a minute, as the router's route records it.
        var setCookie: String?
        if cookie.needsRefresh(at: now) {
            cookie.seenAt = now
            setCookie = cookies.setSession(cookie)
        }
        let span = startSpan("sessionkit.bff.forward", ofKind: .server)
        span.attributes["http.request.method"] = request.method.rawValue
        return ForwardingPlan(
            exchange: { sink in
                UpstreamExchange(
                    head: head, endpoint: endpoint,
                    deadline: .now() + .init(configuration.upstreamTimeout),
                    readTimeout: .init(configuration.upstreamReadTimeout),
                    limit: configuration.maxResponseBodySize, sink: sink)
            }, pool: pool, setCookie: setCookie, started: .now, span: span)
    }

    /// Counts a forwarded request's answer, as the router's forwarding route does.
    func finished(_ plan: ForwardingPlan, status: Int) {
        plan.span.attributes["http.response.status_code"] = status
        if status >= 500 { plan.span.setStatus(SpanStatus(code: .error)) }
        plan.span.end()
        metrics.forwarded(status: status, after: ContinuousClock.now - plan.started)
    }

    /// Whether `path` lies under `mount`: `<mount>/...`, as the router's `<mount>/**` route matches it.
    static func path(_ path: String, isUnder mount: String) -> Bool {
        path.utf8.starts(with: mount.utf8) && path.utf8.dropFirst(mount.utf8.count).first == UInt8(ascii: "/")
    }
}

/// One request the event loop forwards: its exchange with the upstream, once the sink is known, and its count.
struct ForwardingPlan {
    let exchange: (any UpstreamAnswerSink) -> UpstreamExchange
    let pool: LoopPool
    /// The session cookie written again, when the visit is to be recorded in it.
    let setCookie: String?
    let started: ContinuousClock.Instant
    let span: any Span
}
