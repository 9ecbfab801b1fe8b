import HTTPTypes
import Hummingbird

/// The checks that a request comes from the app's own pages, not from another site's page or a link on it.
///
/// - A state-changing request to the back end's own routes (`POST /auth/logout`) passes when its `Origin` is
///   the public URL's origin, or when it carries no `Origin` and has the anti-forgery header (`X-CSRF: 1`).
/// - Every request to `/api/...`, whatever its method, must carry the anti-forgery header, as Duende BFF
///   requires: a browser never lets another site's page send a custom header without a CORS preflight, which
///   this back end never grants, so neither a cross-site `fetch` nor a link, form or navigation (the session
///   cookie is `SameSite=Lax`, so a top-level navigation from another site carries it) can reach the API with
///   the user's token. An `Origin`, when present, must still be the app's.
/// - `Sec-Fetch-Site: cross-site` is refused on both, whatever else the request carries.
struct RequestForgeryCheck: Sendable {
    let origin: String
    let headerName: HTTPField.Name

    /// `nil` when the configured anti-forgery header is not a valid field name.
    init?(configuration: BackendForFrontend.Configuration) {
        guard let headerName = HTTPField.Name(configuration.antiForgeryHeader) else { return nil }
        origin = configuration.origin
        self.headerName = headerName
    }

    static func changesState(_ method: HTTPRequest.Method) -> Bool {
        switch method {
        case .get, .head, .options, .trace: false
        default: true
        }
    }

    /// For the back end's own routes: `nil` when the request may go on, else the 403 answer.
    func refusal(for request: Request) -> Response? {
        guard Self.changesState(request.method) else { return nil }
        if let refusal = crossSite(request) { return refusal }
        if request.headers[.origin] != nil { return nil }
        return request.headers[headerName] == "1"
            ? nil : refused("it has neither this app's Origin nor the header \(headerName.rawName): 1")
    }

    /// For `/api/...`: `nil` when the request carries the anti-forgery header and nothing says it came from
    /// another site, else the 403 answer.
    func apiRefusal(for request: Request) -> Response? {
        apiRefusalReason(request.headers).map(refused)
    }

    /// Why a request to `/api/...` with these headers is refused, or `nil` when it may go on.
    func apiRefusalReason(_ headers: HTTPFields) -> String? {
        if let reason = crossSiteReason(headers) { return reason }
        return headers[headerName] == "1"
            ? nil
            : "it lacks the header \(headerName.rawName): 1, which every API call must carry (a link, a form or "
                + "another site's page cannot send it)"
    }

    private func crossSite(_ request: Request) -> Response? {
        crossSiteReason(request.headers).map(refused)
    }

    private func crossSiteReason(_ headers: HTTPFields) -> String? {
        if headers[.secFetchSite]?.lowercased() == "cross-site" { return "it was sent by another site's page" }
        if let sent = headers[.origin], sent.lowercased() != origin {
            return "its Origin is not this app's (\(origin))"
        }
        return nil
    }

    private func refused(_ reason: String) -> Response {
        Answers.error(
            .forbidden, "cross_site_request_refused",
            "This request was refused because \(reason). Send it from the app's own pages with the header "
                + "\(headerName.rawName): 1.")
    }
}

extension HTTPField.Name {
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}
