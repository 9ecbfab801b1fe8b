extension ProviderClient {
    /// Polls the token endpoint with `parameters` until the user decides: the shared loop of the device grant
    /// (RFC 8628 section 3.5) and backchannel authentication (OpenID CIBA Core section 11), which answer alike.
    ///
    /// It waits `interval` seconds before each poll, calls `onPending` after each `authorization_pending`, and adds
    /// 5 s to the interval on `slow_down` for this and every later poll. Every other answer ends the loop: tokens, or
    /// the error (`access_denied`, `expired_token`, a network failure) for the caller to explain.
    ///
    /// With `wakeUp` (CIBA ping mode), a signal ends the wait at once; one that came since the last poll started (or,
    /// before the first, ever) ends the next wait at once too.
    func pollTokenEndpoint(
        _ parameters: [(String, String)],
        interval: Double,
        flow: String,
        wakeUp: ChangeSignal? = nil,
        onPending: @Sendable () -> Void
    ) async throws(SessionKitError) -> Credentials {
        var interval = interval
        var epoch = 0
        while true {
            let pause = Duration.milliseconds(Int(min(max(interval, 0), 3600) * 1000))
            do {
                if let wakeUp {
                    await wakeUp.wait(upTo: pause, unlessSignalledSince: epoch)
                    try Task.checkCancellation()
                    epoch = wakeUp.epoch
                } else {
                    try await Task.sleep(for: pause)
                }
            } catch {
                throw SessionKitError(code: .cancelled, message: "\(flow) was cancelled")
            }
            do {
                // As for the password grant: an ID token is validated when present, not required.
                return try await tokenRequest(parameters, expecting: .init())
            } catch  where error.oauthError == "authorization_pending" {
                onPending()
            } catch  where error.oauthError == "slow_down" {
                interval += 5
            }
        }
    }
}
