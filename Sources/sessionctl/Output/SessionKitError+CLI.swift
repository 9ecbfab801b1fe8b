import SessionKit

extension SessionKitError {
    /// What a sessionctl user reads for this error: SessionKit's message, except for an endpoint the provider's
    /// discovery document lacks, where SessionKit names its Swift API (`EndpointOverrides`) and sessionctl names the
    /// `configure` option that supplies it, for `profile` when one is given.
    func messageForCLI(profile: String?) -> String {
        guard let endpoint = missingEndpoint else { return message }
        guard let option = Configure.EndpointOption.name(for: endpoint) else {
            return "the provider's discovery document lists no \(endpoint.name) endpoint, and sessionctl has no "
                + "setting for one"
        }
        let named = profile.map { " --profile " + ShellWord.quoted($0) } ?? ""
        return "the provider's discovery document lists no \(endpoint.name) endpoint; give its URL with: "
            + "sessionctl configure\(named) --\(option) URL"
    }
}
