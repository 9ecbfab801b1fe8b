import Foundation
import HTTPTypes
public import Hummingbird

/// Gives each request of an app's own routes the user's session (``BFFRequestContext/session``), from the
/// sealed session cookie, and records the visit for the idle timeout. It reads no store: a route that needs the
/// user asks the session for credentials. A cookie past its lifetime or idle timeout gives no session (the
/// session itself is ended when a back-end route sees it). The back end's own routes (``BackendForFrontend/addRoutes(to:)``)
/// are passed through untouched: they read the cookie themselves.
///
/// ```swift
/// router.add(middleware: bff.sessionMiddleware())
/// router.get("orders") { request, context in
///     guard let session = context.session else { return Response(status: .unauthorized) }
///     let token = try await session.credentials().accessToken
///     ...
/// }
/// ```
public struct BFFSessionMiddleware<Context: BFFRequestContext>: RouterMiddleware {
    let bff: BackendForFrontend

    /// Creates the middleware for `bff`'s cookie.
    public init(_ bff: BackendForFrontend) { self.bff = bff }

    /// Sets the context's session from the cookie and calls the next responder.
    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // The back end's own routes read the cookie themselves: opening it here too would cost every forwarded
        // request a second parse and AES-GCM open.
        if bff.ownsRoute(request.uri.path) { return try await next(request, context) }
        var context = context
        var refresh: String?
        if var cookie = bff.cookies.session(in: request), cookie.ended(at: .now) == nil {
            context.session = BFFSession(id: cookie.id, sessions: bff.sessions, expiresAt: cookie.expiresAt)
            if cookie.needsRefresh(at: .now) {
                cookie.seenAt = .now
                refresh = bff.cookies.setSession(cookie)
            }
        } else {
            context.session = nil
        }
        var response = try await next(request, context)
        if let refresh,
            !response.headers[values: .setCookie].contains(where: { $0.hasPrefix(bff.cookies.sessionName + "=") })
        {
            response.headers.append(HTTPField(name: .setCookie, value: refresh))
        }
        return response
    }
}

extension BackendForFrontend {
    /// The middleware that gives an app's own routes the user's session.
    public func sessionMiddleware<Context: BFFRequestContext>(context: Context.Type = Context.self)
        -> BFFSessionMiddleware<Context>
    {
        BFFSessionMiddleware(self)
    }
}
