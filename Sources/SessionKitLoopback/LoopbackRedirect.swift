import NIOCore
import NIOHTTP1
public import SessionKit

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The browser's redirect back from the provider, whose `state` matched the request's. The browser's
/// request is held open until you say how the sign-in ended (with ``complete(signedInAs:)`` or
/// ``complete(failure:)``), so the page it shows tells the truth; after the listener's
/// ``LoopbackRedirectListener/Configuration/responseTimeout`` it says to look at the application instead.
public struct LoopbackRedirect: Sendable, CustomStringConvertible {
    /// The full redirect URL, with the code (or the provider's error) and `state` in its query. Pass it to
    /// ``ProviderClient/exchange(callback:for:)``; never log it.
    public let url: URL
    let page: EventLoopPromise<LoopbackPage>
    let written: EventLoopFuture<Void>

    /// The redirect without its query.
    public var description: String { "LoopbackRedirect(path: \(url.path))" }

    /// Answers the browser with "Signed in as `name`" (or "Signed in" without a name) and waits until the
    /// page has been sent.
    public func complete(signedInAs name: String?) async {
        let who = name.map { $0.isEmpty ? "" : " as \($0)" } ?? ""
        await answer(LoopbackPage(status: .ok, message: "Signed in\(who). You can close this window."))
    }

    /// Answers the browser with "Sign-in failed: …", a safe summary of `failure` (its kind, the provider's
    /// OAuth error code or the failed check; never a code, token or provider text), and waits until the page
    /// has been sent.
    public func complete(failure: SessionKitError) async {
        await answer(.failure(failure))
    }

    private func answer(_ response: LoopbackPage) async {
        page.succeed(response)
        try? await written.get()
    }

    /// A fixed sentence per kind of failure; the provider's error code only when it is a plain token.
    static func summary(of error: SessionKitError) -> String {
        switch error.code {
        case .providerError:
            guard let code = error.oauthError, isPlainToken(code) else { return "the provider refused the sign-in" }
            return code == "access_denied"
                ? "access was denied at the provider (access_denied)" : "the provider refused the sign-in (\(code))"
        case .validationFailed:
            return "the provider's answer failed validation"
                + (error.failedCheck.map { " (\($0.rawValue))" } ?? "")
        case .networkFailure, .timeout, .serverError, .rateLimited:
            return "the provider could not be reached or did not answer properly; try again"
        case .invalidResponse: return "the provider's answer was not understood"
        case .storeUnavailable, .storeCorrupted: return "the session could not be saved"
        case .cancelled: return "the sign-in was cancelled"
        default: return "the sign-in could not be completed"
        }
    }

    private static func isPlainToken(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 64
            && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || $0 == "_" || ("0"..."9").contains($0) }
    }
}
