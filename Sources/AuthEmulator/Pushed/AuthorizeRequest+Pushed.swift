extension AuthorizeRequest {
    /// Parses an `/authorize` request, reading a pushed request's parameters in place of the query when it carries a
    /// `request_uri` (RFC 9126 section 4), and refusing one without a `request_uri` from a client that must push.
    ///
    /// An unknown `request_uri`, or another client's, is shown on a page: its redirect URI is not this client's to
    /// trust. An expired or used one names a request that was checked when it was pushed, so the error
    /// (`invalid_request_uri`) goes back to that request's redirect URI.
    static func parse(resolving p: RequestParameters, core: EmulatorCore) throws(Failure) -> AuthorizeRequest {
        guard let uri = p["request_uri"] else {
            let request = try parse(p, core: core)
            if core.pushed.isRequired(forClient: request.client.id) {
                let refusal = OAuthError(
                    .invalidRequest,
                    "This client must push its authorization requests (RFC 9126): POST them to /oauth/par and send "
                        + "the browser with client_id and request_uri only.")
                throw .redirect(refusal, redirectURI: request.redirectURI, state: request.state)
            }
            return request
        }
        guard let client = core.client(id: p["client_id"]) else {
            throw .page("Unknown client_id. A request_uri must come with the client_id that pushed it.")
        }
        let record: PushedRequests.Record
        do throws(PushedRequests.Refusal) {
            record = try core.pushed.resolve(uri, clientID: client.id, now: core.clock.now)
        } catch {
            switch error {
            case .unknown:
                throw .page("invalid_request_uri: the request_uri is unknown to this server. Push the request again.")
            case .otherClient:
                throw .page("invalid_request_uri: the request_uri was pushed by another client than \(client.id).")
            case .expired(let record):
                throw refusal(record, "The request_uri has expired; push the request again.")
            case .used(let record):
                throw refusal(record, "The request_uri has been used already; push the request again.")
            }
        }
        var request = try parse(record.parameters, core: core)
        request.requestURI = uri
        request.dpopJKT = record.dpopJKT
        return request
    }

    /// `invalid_request_uri`, redirected to the redirect URI the pushed request named (checked when it was pushed).
    private static func refusal(_ record: PushedRequests.Record, _ text: String) -> Failure {
        .redirect(
            OAuthError(.invalidRequestURI, text), redirectURI: record.parameters["redirect_uri"] ?? "",
            state: record.parameters["state"])
    }
}
