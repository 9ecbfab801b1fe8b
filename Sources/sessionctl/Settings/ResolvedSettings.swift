import SecureStore
import SessionKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Settings after flags, environment and file, checked and turned into library objects.
struct ResolvedSettings {
    let profile: String
    let settings: ProfileSettings
    let sessionsDirectory: String?
    /// Which store backends may be used (`--store`).
    let storePolicy: StoreSelection.Policy
    /// The client secret given to this run, or read from the secure store.
    var clientSecret: Secret?

    /// How requests reach the provider: `HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY` and `SSL_CERT_FILE` from the
    /// environment, and the profile's certificate authority file (`--ca-file`).
    ///
    /// - Throws: ``SessionKitError/Code/invalidConfiguration`` naming the variable or file that is wrong.
    func networkOptions() throws(SessionKitError) -> NetworkOptions {
        let names = ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "SSL_CERT_FILE"]
        var environment: [String: String] = [:]
        for name in names + names.map({ $0.lowercased() }) { environment[name] = Environment.value(name) }
        var options = try NetworkOptions.fromEnvironment(environment)
        if let file = settings.caFile, !options.certificateAuthorityFiles.contains(file) {
            options.certificateAuthorityFiles.append(file)
            do {
                try options.check()
            } catch {
                throw SessionKitError(
                    code: .invalidConfiguration,
                    message: error.message + "; or change it with `sessionctl configure --profile "
                        + "\(ShellWord.quoted(profile)) --ca-file FILE`")
            }
        }
        return options
    }

    /// The provider configuration, or an error that says which setting is missing or wrong.
    func providerConfiguration() throws(SessionKitError) -> ProviderConfiguration {
        guard let issuerText = settings.issuer else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "no issuer is configured for profile '\(profile)'; run `sessionctl configure --issuer URL "
                    + "--client-id ID` or set SESSIONCTL_ISSUER"
            )
        }
        guard let issuer = URL(string: issuerText), issuer.host != nil else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "the issuer '\(issuerText)' is not a URL; use the form https://tenant.example.com/"
            )
        }
        guard let clientID = settings.clientID else {
            throw SessionKitError(
                code: .invalidConfiguration,
                message:
                    "no client id is configured for profile '\(profile)'; run `sessionctl configure --client-id ID`"
            )
        }
        return try ProviderConfiguration(
            issuer: issuer,
            clientID: clientID,
            clientSecret: clientSecret,
            clientAuthentication: try clientAuthentication(),
            audience: settings.audience,
            scope: settings.scope,
            endpoints: try endpointOverrides()
        )
    }

    /// `--client-auth` as the library names it.
    private func clientAuthentication() throws(SessionKitError) -> ClientAuthenticationMethod {
        switch settings.clientAuth {
        case nil, "auto": return .automatic
        case "basic": return .clientSecretBasic
        case "post": return .clientSecretPost
        case let other?:
            throw SessionKitError(
                code: .invalidConfiguration,
                message: "the client authentication '\(other)' is not one of auto, basic, post; "
                    + "pass --client-auth auto|basic|post")
        }
    }

    private func endpointOverrides() throws(SessionKitError) -> EndpointOverrides {
        let endpoints = settings.endpoints
        func url(_ text: String?, _ name: String) throws(SessionKitError) -> URL? {
            guard let text else { return nil }
            guard let url = URL(string: text), url.host != nil else {
                throw SessionKitError(
                    code: .invalidConfiguration, message: "the \(name) endpoint '\(text)' is not a URL")
            }
            return url
        }
        return EndpointOverrides(
            authorization: try url(endpoints?.authorization, "authorization"),
            token: try url(endpoints?.token, "token"),
            userInfo: try url(endpoints?.userInfo, "userinfo"),
            revocation: try url(endpoints?.revocation, "revocation"),
            deviceAuthorization: try url(endpoints?.deviceAuthorization, "device-authorization"),
            jwks: try url(endpoints?.jwks, "JWKS")
        )
    }
}
