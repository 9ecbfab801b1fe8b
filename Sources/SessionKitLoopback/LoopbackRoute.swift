import NIOCore
import NIOHTTP1
import SessionKit
import SessionKitSupport

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decides the answer to one request: the start link, the callback path, or neither.
struct LoopbackRoute: Sendable {
    /// How a request is answered.
    enum Answer {
        case page(LoopbackPage)
        /// The real redirect: answered when `page` completes; `written` completes once it has been sent.
        case hold(page: EventLoopPromise<LoopbackPage>, written: EventLoopPromise<Void>)
    }

    let state: LoopbackListenerState
    /// The callback path, percent-encoded as in the redirect URI.
    let callbackPath: String
    let responseTimeout: Duration
    let onIgnored: (@Sendable (LoopbackRedirectListener.IgnoredRequest) -> Void)?

    func answer(_ head: HTTPRequestHead, eventLoop: any EventLoop) -> Answer {
        let target = head.uri
        let path = String(target.prefix { $0 != "?" && $0 != "#" })
        if path.hasPrefix("/start/") {
            guard head.method == .GET else { return .page(.methodNotAllowed) }
            switch state.start(token: String(path.dropFirst("/start/".count))) {
            case .unknown: return .page(.notFound)
            case .used: return .page(.startUsed)
            case .redirect(let url): return .page(.redirect(to: url.absoluteString))
            case .make(let destination): return redirect(to: destination, eventLoop: eventLoop)
            }
        }
        guard path == callbackPath else { return .page(.notFound) }
        guard head.method == .GET else { return .page(.methodNotAllowed) }
        let items = URLComponents(string: target)?.queryItems ?? []
        let states = items.filter { $0.name == "state" }.map { $0.value ?? "" }
        switch state.judge(states: states) {
        case .ignore(let reason):
            onIgnored?(LoopbackRedirectListener.IgnoredRequest(reason: reason))
            switch reason {
            case .missingState, .wrongState: return .page(.foreign)
            case .alreadyCompleted: return .page(.repeated)
            case .notWaiting: return .page(.notWaiting)
            }
        case .accept(let redirectURI):
            // The redirect URI as sent, with the query the browser brought back.
            // Built by parsing, never by assigning text to a URL part (which Foundation answers with a crash).
            var base = redirectURI.absoluteString
            if let mark = base.firstIndex(of: "?") { base = String(base[..<mark]) }
            let query = URLComponents(string: target)?.percentEncodedQuery
            guard let url = URL(string: query.map { base + "?" + $0 } ?? base) else { return .page(.foreign) }
            let page = eventLoop.makePromise(of: LoopbackPage.self)
            let written = eventLoop.makePromise(of: Void.self)
            let timer = eventLoop.scheduleTask(in: .nanoseconds(responseTimeout.clampedNanoseconds)) {
                page.succeed(.undecided)
            }
            page.futureResult.whenComplete { _ in timer.cancel() }
            state.deliver(LoopbackRedirect(url: url, page: page, written: written.futureResult))
            return .hold(page: page, written: written)
        }
    }

    /// A start link whose destination is made when the browser comes (a push, a single-use token): makes it and
    /// redirects there; when that fails, the browser is told so and the wait ends with the error. Either way the
    /// outcome is recorded once the page has been sent.
    private func redirect(to destination: @escaping LoopbackListenerState.Destination, eventLoop: any EventLoop)
        -> Answer
    {
        let page = eventLoop.makePromise(of: LoopbackPage.self)
        let written = eventLoop.makePromise(of: Void.self)
        let state = state
        Task {
            var failure: SessionKitError?
            do throws(SessionKitError) {
                page.succeed(.redirect(to: try await destination().absoluteString))
            } catch {
                failure = error
                page.succeed(.failure(error))
            }
            try? await written.futureResult.get()
            state.startAnswered(failure: failure)
        }
        return .hold(page: page, written: written)
    }
}
