import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SessionKit
import SessionKitBFF

/// The example's web application: the back end's routes, the page, and one route of the app's own that uses
/// the session through the middleware.
enum ExampleApp {
    static func build(bff: BackendForFrontend, host: String, port: Int, logger: Logger) -> some ApplicationProtocol {
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
        // An app route of its own: the middleware gave it the session.
        router.get("hello") { _, context -> Response in
            guard let session = context.session, let claims = try? await session.idTokenClaims() else {
                return Response(
                    status: .unauthorized, body: ResponseBody(byteBuffer: ByteBuffer(string: "not signed in\n")))
            }
            let name = claims.name ?? claims.subject ?? "you"
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "Hello, \(name)\n")))
        }
        return Application(
            router: router,
            server: bff.httpServer,
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            logger: logger
        )
    }
}
