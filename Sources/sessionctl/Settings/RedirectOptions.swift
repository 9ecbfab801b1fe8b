import ArgumentParser

/// Where a browser sign-in's redirect comes back to: `login` uses them for one sign-in, `configure` saves them in
/// the profile. Declared once for both.
struct RedirectOptions: ParsableArguments {
    @Option(
        name: .customLong("redirect-port"),
        help: "A fixed port for browser sign-in redirects (default: the profile's, else a free port).")
    var redirectPort: Int?

    @Option(
        name: .customLong("redirect-uri"),
        help: ArgumentHelp(
            "The exact redirect URI for browser sign-ins, for providers that match it exactly: http, host 127.0.0.1, "
                + "[::1] or localhost, any path, any port or none (80); replaces --redirect-port.",
            valueName: "URI"))
    var redirectURI: String?

    func validate() throws {
        if let redirectPort, !(0...65_535).contains(redirectPort) {
            throw ValidationError("--redirect-port is \(redirectPort); give a port from 0 (any free one) to 65535")
        }
        if redirectURI != nil && redirectPort != nil {
            throw ValidationError("--redirect-uri and --redirect-port exclude each other; the URI names its port")
        }
    }
}
