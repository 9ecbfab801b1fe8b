import SessionKit

extension SessionKitError {
    /// What a sessionctl user reads for this error: SessionKit's message, except where SessionKit names its Swift API
    /// and sessionctl names the `configure` option instead, for `profile` when one is given: an endpoint the
    /// provider's discovery document lacks (`EndpointOverrides`, `--<endpoint>-endpoint`) and a certificate no
    /// trusted authority signed (`NetworkOptions`, `--ca-file`).
    func messageForCLI(profile: String?) -> String {
        let named = profile.map { " --profile " + ShellWord.quoted($0) } ?? ""
        if let failure = underlyingError as? CertificateTrustFailure {
            return "\(failure); if \(failure.host)'s certificate is signed by a private certificate authority, "
                + "trust the authority's PEM file: sessionctl configure\(named) --ca-file FILE (or --ca-file FILE "
                + "on each command, or SSL_CERT_FILE); the session is kept"
        }
        guard let endpoint = missingEndpoint else { return message }
        if endpoint == .pushedAuthorization {
            return "the provider's discovery document lists no pushed authorization request endpoint: it does not take "
                + "pushed authorization requests (RFC 9126); sign in without --par"
        }
        if endpoint == .backchannelAuthentication {
            return "the provider's discovery document lists no backchannel authentication endpoint: it does not "
                + "support sign-ins approved on the user's device (OpenID CIBA); sign in without --backchannel (the "
                + "browser, or --device)"
        }
        guard let option = Configure.EndpointOption.name(for: endpoint) else {
            return "the provider's discovery document lists no \(endpoint.name) endpoint, and sessionctl has no "
                + "setting for one"
        }
        return "the provider's discovery document lists no \(endpoint.name) endpoint; give its URL with: "
            + "sessionctl configure\(named) --\(option) URL"
    }
}
