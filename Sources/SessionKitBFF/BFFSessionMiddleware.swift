public import Hummingbird

/// Gives each request of an app's own routes the user's session (``BFFRequestContext/session``), from the
/// session cookie. It reads no store: a route that needs the user asks the session for credentials.
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
        var context = context
        context.session = bff.cookies.sessionID(in: request).map { BFFSession(id: $0, sessions: bff.sessions) }
        return try await next(request, context)
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
