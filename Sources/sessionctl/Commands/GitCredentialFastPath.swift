import SecureStore
import SessionKit
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `sessionctl git-credential ... get` answered without ArgumentParser when the stored token serves, as `token`'s
/// fast path does (``TokenArguments``): git runs the helper for every fetch and push, so its start-up is paid each
/// time. Reads only the options `git-credential` documents; anything else, and every case that needs more than a
/// stored valid token (renewal, a stale token, no session, any error), goes through the usual path, which gets the
/// request git wrote from ``input`` since standard input can be read only once.
struct GitCredentialFastPath {
    /// The settings options given (``SettingOption``).
    var options: [SettingOption: String] = [:]
    var username = "oauth2"
    var minTTL = 60
    /// `--allow-http`: plain http to a claimed host that is not loopback may have a token.
    var allowsHTTP = false

    /// The request the fast path read from standard input, for the usual path to use instead of reading again.
    private static let input = Mutex<String?>(nil)

    /// What git wrote on standard input: as the fast path read it, else read now.
    static func request() -> String {
        input.withLock { $0 } ?? Terminal.readStandardInput()
    }

    /// The arguments after `git-credential`, or `nil` unless they are `get` with documented options: `--allow-http`
    /// alone, every other with a value (`--name value` or `--name=value`).
    static func parse(_ arguments: ArraySlice<String>) -> GitCredentialFastPath? {
        var parsed = GitCredentialFastPath()
        var operation: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else {
                guard operation == nil else { return nil }
                operation = argument
                continue
            }
            let name = String(argument.dropFirst(2).prefix { $0 != "=" })
            let inline = argument.firstIndex(of: "=").map { String(argument[argument.index(after: $0)...]) }
            if name == GitCredentialAnswer.OptionName.allowHTTP {
                guard inline == nil else { return nil }
                parsed.allowsHTTP = true
                continue
            }
            guard let value = inline ?? rest.popFirst(), inline != nil || !value.hasPrefix("-") else { return nil }
            switch name {
            case GitCredentialAnswer.OptionName.username: parsed.username = value
            case GitCredentialAnswer.OptionName.minTTL:
                guard let seconds = Int(value) else { return nil }
                parsed.minTTL = seconds
            default:
                guard let option = SettingOption(rawValue: name) else { return nil }
                parsed.options[option] = value
            }
        }
        return operation == "get" ? parsed : nil
    }

    /// Answers git when ``GitHostClaim`` lets a profile answer and its stored token serves for `minTTL`, and says
    /// whether it did (a refusal is the usual path's to explain). Reads standard input in every case and keeps it in
    /// ``input``.
    func answer() -> Bool {
        let text = Terminal.readStandardInput()
        Self.input.withLock { $0 = text }
        guard let request = try? GitCredentialRequest(parsing: text),
            let settings = try? GitHostClaim.flags(SettingFlags(options), for: request, allowsHTTP: allowsHTTP),
            let context = try? SessionContext.make(settings, warnOnFallback: false, readsStoredSecret: false),
            let credentials = try? context.session.localCredentials(minTTL: TimeInterval(minTTL)),
            let stale = try? StaleToken(store: context.storeSelection.store, profile: context.resolved.profile)
                .matches(credentials.accessToken.unsafeRawValue), !stale
        else { return false }
        guard
            let answer = request.answer(
                token: credentials.accessToken.unsafeRawValue, username: username, expiresAt: credentials.expiresAt)
        else { return false }
        Terminal.outRaw(answer)
        return true
    }
}
