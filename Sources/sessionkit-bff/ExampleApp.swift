import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import SessionKit
import SessionKitBFF

/// The example's web application: the back end's routes, the page, and one route of the app's own that uses
/// the session through the middleware.
enum ExampleApp {
    /// The application, with `services` beside its HTTP server and `prepare` run once they are up, before the
    /// server accepts anything.
    static func build(
        bff: BackendForFrontend, services: [any Service], host: String, port: Int, logger: Logger,
        prepare: @escaping @Sendable () async throws -> Void
    ) -> some ApplicationProtocol {
        let router = Router(context: BasicBFFRequestContext.self)
        router.add(middleware: bff.sessionMiddleware())
        bff.addRoutes(to: router)
        router.get("/") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-store"
            headers[.contentSecurityPolicy] =
                "default-src 'self'; script-src 'unsafe-inline' 'self'; style-src 'unsafe-inline'"
            return Response(
                status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: ExamplePage.html)))
        }
        // Readiness: 200 when the session store and the provider answer, 503 (with which one did not) otherwise.
        router.get("ready") { _, _ -> Response in
            let readiness = await bff.readiness()
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-store"
            let body = (try? JSONEncoder().encode(readiness)) ?? Data("{}".utf8)
            return Response(
                status: readiness.isReady ? .ok : .serviceUnavailable, headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        // An app route of its own: the middleware gave it the session.
        router.get("hello") { _, context -> Response in
            guard let session = context.session, let claims = try? await session.idTokenClaims() else {
                return Response(
                    status: .unauthorized, body: ResponseBody(byteBuffer: ByteBuffer(string: "not signed in\n")))
            }
            let name = claims.name ?? claims.subject ?? "you"
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "Hello, \(name)\n")))
        }
        var app = Application(
            router: router,
            server: bff.httpServer,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            services: services,
            logger: logger
        )
        app.beforeServerStarts(perform: prepare)
        return app
    }
}
