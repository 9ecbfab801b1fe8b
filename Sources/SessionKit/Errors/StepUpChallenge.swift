#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a provider or a resource server asks for before it serves the user again: a stronger or a fresher
/// authentication (step-up). Carried by ``SessionKitError/stepUp`` when the code is
/// ``SessionKitError/Code/stepUpRequired``; the session is kept.
///
/// Two forms exist today:
/// - Auth0 answers a refresh grant with `mfa_required` and an `mfa_token` when a rule or action demands
///   multi-factor authentication (``mfaToken`` is set);
/// - a resource server answers `401` with `WWW-Authenticate: Bearer error="insufficient_user_authentication"`
///   and the `acr_values` or `max_age` it needs (RFC 9470); read it with ``init(wwwAuthenticate:)``.
///
/// Either way, sign the user in again with
/// ``ProviderClient/authorizationRequest(redirectURI:stepUp:audience:deferringPush:)``, which sends what was asked for,
/// and store the result.
///
/// ```swift
/// let (data, response) = try await URLSession.shared.data(for: request)
/// if let header = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "WWW-Authenticate"),
///    let challenge = StepUpChallenge(wwwAuthenticate: header) {
///     let signIn = try await provider.authorizationRequest(redirectURI: redirect, stepUp: challenge)
///     // open signIn.url in the browser, then exchange the callback and store the credentials
/// }
/// ```
public struct StepUpChallenge: Sendable, Hashable, CustomStringConvertible {
    /// The authentication context classes asked for (`acr_values`), most preferred first; empty when none
    /// was named.
    public var acrValues: [String]
    /// The longest acceptable time since the user last authenticated, in seconds (`max_age`), if asked for.
    public var maxAge: Int?
    /// Auth0's `mfa_token`, for its MFA API (`/mfa/challenge`), when the provider answered `mfa_required`.
    public var mfaToken: Secret?

    /// Creates a challenge. Terminal control characters in `acrValues` are taken out (a line break or tab
    /// separates values, as a space does): they come from a provider, and end up on a screen and in a URL.
    public init(acrValues: [String] = [], maxAge: Int? = nil, mfaToken: Secret? = nil) {
        self.acrValues = acrValues.flatMap { value in
            value.strippingTerminalControls().split(separator: " ").map(String.init)
        }
        self.maxAge = maxAge
        self.mfaToken = mfaToken
    }

    /// Reads an RFC 9470 challenge from a `WWW-Authenticate` header value: `nil` unless it is a `Bearer` (or
    /// `DPoP`) challenge with `error="insufficient_user_authentication"`. A malformed `max_age` is left out,
    /// never guessed.
    public init?(wwwAuthenticate header: String) {
        guard let parameters = Self.parameters(of: header),
            parameters["error"] == "insufficient_user_authentication"
        else { return nil }
        self.init(
            acrValues: parameters["acr_values"].map { $0.split(separator: " ").map(String.init) } ?? [],
            maxAge: parameters["max_age"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil })
    }

    /// What is asked for; never the MFA token.
    public var description: String {
        var parts: [String] = []
        if !acrValues.isEmpty { parts.append("acr_values: \(acrValues.joined(separator: " "))") }
        if let maxAge { parts.append("max_age: \(maxAge)") }
        if mfaToken != nil { parts.append("mfa_token: <redacted>") }
        return "StepUpChallenge(\(parts.joined(separator: ", ")))"
    }

    /// The auth-params of the first `Bearer` or `DPoP` challenge (RFC 9110 §11.6.1): `name=token` or
    /// `name="quoted string"`, separated by commas; names compared case-insensitively.
    static func parameters(of header: String) -> [String: String]? {
        var rest = Substring(header).drop { $0 == " " }
        guard let space = rest.firstIndex(of: " ") else { return nil }
        let scheme = rest[..<space].lowercased()
        guard scheme == "bearer" || scheme == "dpop" else { return nil }
        rest = rest[space...]
        var parameters: [String: String] = [:]
        while true {
            rest = rest.drop { $0 == " " || $0 == "," }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingSpacesAndTabs().lowercased()
            guard !name.isEmpty, !name.contains(" ") else { break }  // the next challenge's scheme
            rest = rest[rest.index(after: equals)...].drop { $0 == " " }
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        value.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        value.append(character)
                    }
                }
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end].trimmingSpacesAndTabs()
                rest = rest[end...]
            }
            if parameters[name] == nil { parameters[name] = value }
        }
        return parameters
    }
}
