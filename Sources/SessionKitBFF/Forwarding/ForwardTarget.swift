/// Where one forwarding route sends requests, worked out once when the back end is created: the session's own API
/// at `<prefix>/api`, or a ``BackendForFrontend/RemoteAPI`` with its audience.
struct ForwardTarget: Sendable {
    /// The path the route is mounted at, which forwarded paths are taken from.
    let mount: String
    /// The upstream URL without trailing slashes, which forwarded paths are appended to.
    let base: String
    /// The remote API, when the token is for another audience than the session's.
    let api: BackendForFrontend.RemoteAPI?

    init(mount: String, upstream: String, api: BackendForFrontend.RemoteAPI? = nil) {
        var base = upstream
        while base.hasSuffix("/") { base.removeLast() }
        self.mount = mount
        self.base = base
        self.api = api
    }
}
