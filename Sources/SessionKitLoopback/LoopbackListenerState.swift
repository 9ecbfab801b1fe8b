import SessionKit
import SessionKitSupport
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What one listener knows and decides, shared by its connections and its waiter: the request in progress,
/// whether its start link was used, and the hand-over of the one redirect whose `state` matches.
final class LoopbackListenerState: Sendable {
    /// How a callback request is answered.
    enum Verdict {
        /// The real redirect, for the request made with `redirectURI`.
        case accept(redirectURI: URL)
        case ignore(LoopbackRedirectListener.IgnoredRequest.Reason)
    }

    private enum Delivery {
        case pending(CheckedContinuation<Result<LoopbackRedirect, SessionKitError>, Never>?)
        case arrived(LoopbackRedirect)
        case ended(SessionKitError)
    }

    /// Makes the start link's destination when the browser follows it.
    typealias Destination = @Sendable () async throws(SessionKitError) -> URL

    /// What the start link answers.
    enum Start {
        /// A wrong token, or nothing named yet.
        case unknown
        /// The link was followed once already.
        case used
        /// A 303 to this URL.
        case redirect(URL)
        /// A 303 to the URL this makes, made now.
        case make(Destination)
    }

    private struct Fields {
        var state: String?
        var destination: Start?
        var redirectURI: URL?
        var startUsed = false
        /// Whether the start link's redirect has been sent, or why it could not be made.
        var startAnswered = false
        var startFailure: SessionKitError?
        var accepted = false
        var delivery = Delivery.pending(nil)
    }

    /// The random last path component of the start link.
    let startToken = PKCE.randomToken(bytes: 16)
    private let fields = Mutex(Fields())

    /// Sets the request the listener serves: its `state` for callbacks, and its URL for the start link, or what
    /// makes that URL when the browser comes.
    func expect(_ request: AuthorizationRequest, destination: Destination? = nil) {
        fields.withLock {
            $0.state = request.state
            $0.destination = destination.map(Start.make) ?? .redirect(request.url)
            $0.redirectURI = request.redirectURI
        }
    }

    /// Sets only where the start link leads, made when the browser comes; no callback is expected.
    func lead(to destination: @escaping Destination) {
        fields.withLock { $0.destination = .make(destination) }
    }

    /// Whether the start link's redirect has been sent, and the error that kept its destination from being made.
    var startOutcome: (answered: Bool, failure: SessionKitError?) {
        fields.withLock { ($0.startAnswered, $0.startFailure) }
    }

    /// Records that the start link's redirect was sent, or why its destination could not be made; a failure also
    /// ends the wait for a redirect.
    func startAnswered(failure: SessionKitError?) {
        fields.withLock {
            $0.startAnswered = failure == nil
            $0.startFailure = failure
        }
        if let failure { end(with: failure) }
    }

    /// The answer to a start-link request carrying `token`: where it leads the first time.
    func start(token: String) -> Start {
        guard ConstantTime.equals(token, startToken) else { return .unknown }
        return fields.withLock { fields -> Start in
            guard let destination = fields.destination else { return .unknown }
            if fields.startUsed { return .used }
            fields.startUsed = true
            if case .redirect = destination { fields.startAnswered = true }
            return destination
        }
    }

    /// Judges a callback by its `state` values (exactly one must be there); the first match is accepted, and
    /// only once, while the wait goes on.
    func judge(states: [String]) -> Verdict {
        fields.withLock { fields in
            guard let expected = fields.state, let redirectURI = fields.redirectURI, let state = states.first,
                states.count == 1
            else {
                return .ignore(.missingState)
            }
            guard ConstantTime.equals(state, expected) else { return .ignore(.wrongState) }
            if fields.accepted { return .ignore(.alreadyCompleted) }
            if case .ended = fields.delivery { return .ignore(.notWaiting) }
            fields.accepted = true
            return .accept(redirectURI: redirectURI)
        }
    }

    /// Hands the accepted redirect to the waiter, now or when it comes.
    func deliver(_ redirect: LoopbackRedirect) {
        let waiter = fields.withLock {
            fields -> CheckedContinuation<Result<LoopbackRedirect, SessionKitError>, Never>? in
            guard case .pending(let waiter) = fields.delivery else { return nil }
            fields.delivery = waiter == nil ? .arrived(redirect) : .ended(Self.taken)
            return waiter
        }
        waiter?.resume(returning: .success(redirect))
    }

    /// Ends the wait with `error` (a timeout, a cancellation), unless the redirect was already handed over.
    func end(with error: SessionKitError) {
        let waiter = fields.withLock {
            fields -> CheckedContinuation<Result<LoopbackRedirect, SessionKitError>, Never>? in
            guard case .pending(let waiter) = fields.delivery else { return nil }
            fields.delivery = .ended(error)
            return waiter
        }
        waiter?.resume(returning: .failure(error))
    }

    private static let taken = SessionKitError(
        code: .invalidInput,
        message: "this listener's redirect was already taken; start a new listener to sign in again")

    /// Waits for the accepted redirect, or the error that ended the wait.
    func next() async -> Result<LoopbackRedirect, SessionKitError> {
        await withCheckedContinuation { continuation in
            let ready = fields.withLock { fields -> Result<LoopbackRedirect, SessionKitError>? in
                switch fields.delivery {
                case .arrived(let redirect):
                    fields.delivery = .ended(Self.taken)
                    return .success(redirect)
                case .ended(let error):
                    return .failure(error)
                case .pending(.some):
                    return .failure(
                        SessionKitError(code: .invalidInput, message: "someone is already waiting on this listener"))
                case .pending(nil):
                    fields.delivery = .pending(continuation)
                    return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
