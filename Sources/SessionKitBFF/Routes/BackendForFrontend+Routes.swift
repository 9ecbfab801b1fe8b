import HTTPTypes
public import Hummingbird
import SessionKit

extension BackendForFrontend {
    /// Adds the sign-in, session, logout and forwarding routes to `router`, under ``Configuration/prefix``.
    ///
    /// The profile routes (`<prefix>/auth/profile`, `<prefix>/auth/profile/metadata`) are added only when
    /// ``Configuration/profile`` is set. The forwarding route `<prefix>/api/**` is added only when ``Configuration/upstream`` is set, and one
    /// `<prefix><path>/**` for each of ``Configuration/remoteAPIs``; they answer every method. The routes read the
    /// session cookie themselves: they need no middleware.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        let group = router.group(RouterPath(configuration.prefix))
        group.get("auth/login") { request, _ in await self.login(request) }
        group.get("auth/callback") { request, _ in await self.callback(request) }
        group.get("auth/me") { request, _ in await self.me(request) }
        group.post("auth/logout") { request, _ in await self.logout(request) }
        if management != nil {
            group.get("auth/profile") { request, _ in await self.profile(request) }
            group.patch("auth/profile/metadata") { request, _ in await self.patchProfileMetadata(request) }
        }
        group.post("auth/backchannel-logout") { request, _ in await self.backChannelLogout(request) }
        group.post("auth/ssf/events") { request, _ in await self.securityEvent(request) }
        let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]
        for target in [sessionAPI].compactMap({ $0 }) + remoteAPIs {
            let path = RouterPath(String(target.mount.dropFirst(configuration.prefix.count + 1)) + "/**")
            for method in methods {
                group.on(path, method: method) { request, _ in await self.forward(request, to: target) }
            }
        }
    }

    /// Whether `path` is one of the routes ``addRoutes(to:)`` adds: `<prefix>/auth/...` or under a forwarding
    /// mount. Such routes read the session cookie themselves, so ``BFFSessionMiddleware`` leaves them alone.
    func ownsRoute(_ path: String) -> Bool {
        let path = path.utf8
        if path.starts(with: authRoutes.utf8) { return true }
        return forwardingMounts.contains { mount in
            path.starts(with: mount.utf8)
                && (path.count == mount.utf8.count || path.dropFirst(mount.utf8.count).first == UInt8(ascii: "/"))
        }
    }

    /// The path of the sign-in route, as the JSON answers name it for the front end.
    var signInPath: String { configuration.prefix + "/auth/login" }

    func sessionFailure(_ error: SessionKitError) -> Response {
        SessionFailure(error: error, signInPath: signInPath, clearCookie: cookies.clearSession).response
    }

    /// The 401 for a request without a live session.
    var signInRequired: Response {
        Answers.error(
            .unauthorized, "sign_in_required", "There is no session, or it has ended; send the user to sign in.",
            signIn: signInPath, setCookies: [cookies.clearSession])
    }
}
