import Hummingbird

/// An answer decided on the way to a route's work (a refused body, a session that cannot be used), carried where a
/// `Result` needs an `Error`.
struct RouteAnswer: Error {
    let response: Response
}
