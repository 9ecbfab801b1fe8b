extension AuthEmulator {
    /// A human-readable summary: issuer, endpoints, clients and users.
    ///
    /// Client secrets and user passwords are never shown, except the seeded demo fixtures, which are public
    /// and labelled as such.
    public var summary: String {
        var lines = ["AuthEmulator", "  issuer:    \(core.issuer)"]
        lines.append("  discovery: \(core.issuer).well-known/openid-configuration")
        lines.append(
            "  controls:  \(configuration.testControlsEnabled ? "enabled at \(core.issuer)__emulator/" : "off")")
        if let auto = configuration.autoSignInUser { lines.append("  test mode: /authorize signs in \(auto)") }
        lines.append("  clients:")
        for client in configuration.clients {
            var line = "    \(client.id) (\(client.isPublic ? "public" : "confidential"))"
            if client == .confidential {
                line += " secret: \(Client.confidentialSecret) [public demo fixture]"
            } else if !client.isPublic {
                line += " secret: <REDACTED>"
            }
            if client.requiresPushedAuthorizationRequests { line += " [pushed authorization requests required]" }
            lines.append(line)
        }
        lines.append("  users:")
        for user in configuration.users {
            var line = "    \(user.email) (\(user.id))"
            if user == .alice || user == .bob {
                line += " password: \(user.password) [public demo fixture]"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
