import Hummingbird
import Logging

extension Router where Context == EmulatorRequestContext {
    /// Adds `POST path` for a request a client makes with its credentials (the token, revocation, device, pushed
    /// authorization and backchannel authentication endpoints): the form body is read and the client authenticated
    /// as ``ClientAuthenticator`` does before `handler` runs, and an ``OAuthError`` from any of them is the answer
    /// (logged at debug level as `refused`, when given).
    func postFromClient(
        _ path: RouterPath, core: EmulatorCore, refused: String? = nil,
        _ handler:
            @escaping @Sendable (Request, RequestParameters, AuthEmulator.Client) async throws(OAuthError) ->
            Response
    ) {
        post(path) { request, _ -> Response in
            var request = request
            do throws(OAuthError) {
                let parameters = try await RequestParameters.body(of: &request)
                let client = try ClientAuthenticator(core: core).authenticate(request, parameters)
                return try await handler(request, parameters, client)
            } catch {
                if let refused { core.logger.debug("\(refused)", metadata: ["error": "\(error.code.rawValue)"]) }
                return error.response
            }
        }
    }
}
