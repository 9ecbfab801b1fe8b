import HTTPTypes
import Hummingbird

/// The check that a state-changing request (`POST`, `PUT`, `PATCH`, `DELETE`) comes from the app's own pages.
///
/// A request passes when its `Origin` is the public URL's origin, or when it carries no `Origin` and has the
/// anti-forgery header (`X-CSRF: 1`), which another site's page cannot send without a CORS preflight. A request
/// with another `Origin`, or `Sec-Fetch-Site: cross-site`, is refused whatever else it carries.
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

    /// `nil` when the request may go on, else the 403 answer.
    func refusal(for request: Request) -> Response? {
        guard Self.changesState(request.method) else { return nil }
        if request.headers[HTTPField.Name("Sec-Fetch-Site")!]?.lowercased() == "cross-site" {
            return refused("it was sent by another site's page")
        }
        if let sent = request.headers[.origin] {
            return sent.lowercased() == origin ? nil : refused("its Origin is not this app's (\(origin))")
        }
        return request.headers[headerName] == "1"
            ? nil : refused("it has neither this app's Origin nor the header \(headerName.rawName): 1")
    }

    private func refused(_ reason: String) -> Response {
        Answers.error(
            .forbidden, "cross_site_request_refused",
            "This state-changing request was refused because \(reason). Send it from the app's own pages, or add "
                + "the header \(headerName.rawName): 1.")
    }
}
